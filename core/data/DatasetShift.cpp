// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/DatasetShift.h"

#include "core/data/ShiftImages.h"

#include <torch/torch.h>

#include <cmath>
#include <map>
#include <random>

#include "core/common/EnumNames.h"
#include "core/common/Error.h"
#include "core/common/NumberText.h"

namespace ensemble {
namespace {

constexpr EnumName<ShiftKind> kKindNames[] = {{ShiftKind::Rotate, "rotate"},
                                               {ShiftKind::Translate, "translate"},
                                               {ShiftKind::Noise, "noise"},
                                               {ShiftKind::Contrast, "contrast"}};
constexpr double kPi = 3.14159265358979323846;

/// Moves every image by its own affine map (`theta`: [N, 2, 3], in the normalised
/// coordinates of affine_grid, from output to input), bilinear, zero outside.
torch::Tensor resample(const torch::Tensor& images, const torch::Tensor& theta) {
  const torch::Tensor input = images.to(torch::kFloat32);
  const torch::Tensor grid = torch::nn::functional::affine_grid(theta.to(input.device()), input.sizes().vec(), false);
  const torch::Tensor output = torch::nn::functional::grid_sample(
      input, grid, torch::nn::functional::GridSampleFuncOptions().mode(torch::kBilinear).padding_mode(torch::kZeros).align_corners(false));
  return output.round().clamp(0, 255).to(torch::kUInt8);
}

torch::Tensor rotate(const torch::Tensor& images, double degrees) {
  const int64_t n = images.size(0);
  const double height = double(images.size(2)), width = double(images.size(3));
  const double angle = degrees * kPi / 180.0, c = std::cos(angle), s = std::sin(angle);
  // Output pixel (x, y) samples the input at R(-angle)(x, y), in pixel units about the
  // centre; normalised coordinates scale x by 2/W and y by 2/H, hence the aspect terms.
  // y grows downwards, so the image turns counterclockwise on screen.
  const torch::Tensor theta =
      torch::tensor({c, -s * height / width, 0.0, s * width / height, c, 0.0}, torch::kFloat32).view({1, 2, 3}).expand({n, 2, 3});
  return resample(images, theta.contiguous());
}

torch::Tensor translate(const torch::Tensor& images, double pixels, std::uint64_t seed) {
  const int64_t n = images.size(0);
  const double height = double(images.size(2)), width = double(images.size(3));
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> direction(0, 3);
  std::vector<float> theta;
  for (int64_t i = 0; i < n; ++i) {
    const int d = direction(random);  // 0 right, 1 left, 2 down, 3 up
    const double dx = d == 0 ? pixels : d == 1 ? -pixels : 0.0, dy = d == 2 ? pixels : d == 3 ? -pixels : 0.0;
    // The output at x shows the input at x - dx.
    theta.insert(theta.end(), {1.0f, 0.0f, float(-2.0 * dx / width), 0.0f, 1.0f, float(-2.0 * dy / height)});
  }
  return resample(images, torch::tensor(theta, torch::kFloat32).view({n, 2, 3}));
}

torch::Tensor addNoise(const torch::Tensor& images, double std, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> gaussian(0.0f, float(std));
  std::vector<float> noise(std::size_t(images.numel()));
  for (float& value : noise) value = gaussian(random);
  const torch::Tensor added = images.to(torch::kFloat32).div(255.0) +
                              torch::tensor(noise, torch::kFloat32).view(images.sizes()).to(images.device());
  return added.clamp(0.0, 1.0).mul(255.0).round().to(torch::kUInt8);
}

torch::Tensor reduceContrast(const torch::Tensor& images, double amount) {
  const torch::Tensor pixels = images.to(torch::kFloat32);
  const torch::Tensor mean = pixels.mean({1, 2, 3}, /*keepdim=*/true);
  return (mean + (pixels - mean) * float(1.0 - amount)).round().clamp(0, 255).to(torch::kUInt8);
}

ShiftKind parseKind(const std::string& name) {
  if (const auto kind = valueNamed(kKindNames, name)) return *kind;
  throw ConfigError("unknown shift kind \"" + name + "\"; the kinds are rotate (degrees), translate (pixels), "
                    "noise (standard deviation on [0, 1] pixels) and contrast (amount from 0 to 1), as KIND:LEVEL[,LEVEL...]");
}

void checkLevel(ShiftKind kind, double level, const std::string& text) {
  if (!std::isfinite(level) || level < 0) {
    throw ConfigError("shift level " + text + " of " + shiftKindName(kind) + " must be a number of 0 or more (0: no shift)");
  }
  if (kind == ShiftKind::Contrast && level > 1) {
    throw ConfigError("contrast level " + text + " must be from 0 (unchanged) to 1 (a flat grey image)");
  }
}

}  // namespace

std::string shiftKindName(ShiftKind kind) { return nameOf(kKindNames, kind); }

std::vector<DatasetShift> parseShifts(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || colon + 1 == text.size()) {
    throw ConfigError("a shift is KIND:LEVEL[,LEVEL...] (e.g. rotate:0,15,30), got \"" + text + "\"");
  }
  const ShiftKind kind = parseKind(text.substr(0, colon));
  std::vector<DatasetShift> shifts;
  std::size_t start = colon + 1;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    // As every flag's number (NumberText.h): stod alone read C's hex floats ("rotate:0x10" was
    // 16 degrees) and called 1e400 no number.
    const std::optional<double> level = wholeNumber(item);
    if (!level) {
      const std::string range = numberOutOfRange(item);
      throw ConfigError("shift level \"" + item + "\" of " + shiftKindName(kind) +
                        (range.empty() ? " is not a number" : " is " + range));
    }
    checkLevel(kind, *level, item);
    shifts.push_back({kind, *level});
    start = comma + 1;
  }
  return shifts;
}

std::vector<DatasetShift> shiftsOfFlags(const std::vector<std::string>& flags, std::string& repeated) {
  std::vector<DatasetShift> shifts;
  std::map<ShiftKind, std::string> flagOfKind;
  repeated.clear();
  for (const std::string& text : flags) {
    const std::vector<DatasetShift> levels = parseShifts(text);
    const ShiftKind kind = levels.front().kind;
    const auto [given, isNew] = flagOfKind.emplace(kind, text);
    if (!isNew) {
      repeated = "--shift " + given->second + " and --shift " + text + " are both " + shiftKindName(kind) +
                 "; give its levels in one --shift (" + shiftKindName(kind) + ":L1,L2,...)";
      return {};
    }
    shifts.insert(shifts.end(), levels.begin(), levels.end());
  }
  return shifts;
}

torch::Tensor applyShift(const torch::Tensor& images, const DatasetShift& shift, std::uint64_t seed) {
  if (shift.level == 0) return images;
  torch::NoGradGuard noGrad;
  switch (shift.kind) {
    case ShiftKind::Rotate: return rotate(images, shift.level);
    case ShiftKind::Translate: return translate(images, shift.level, seed);
    case ShiftKind::Noise: return addNoise(images, shift.level, seed);
    case ShiftKind::Contrast: return reduceContrast(images, shift.level);
  }
  return images;
}

}  // namespace ensemble
