// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/ShiftImages.h"

#include <torch/torch.h>

#include <cmath>
#include <random>

namespace ensemble {
namespace {

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

}  // namespace

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
