// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Dataset shift (Ovadia et al. 2019, "Can you trust your model's uncertainty?"): test
// images moved away from the training distribution by a known amount, to see how
// accuracy and calibration hold up. Each kind is deterministic given the run's seed, and
// level 0 is the identity (the very same images).
//   rotate:DEGREES    turned counterclockwise about the centre (bilinear, black fill)
//   translate:PIXELS  each image moved PIXELS left, right, up or down (drawn per image)
//   noise:STD         Gaussian noise of that standard deviation on [0, 1] pixels, clipped
//   contrast:AMOUNT   contrast reduced by AMOUNT in [0, 1]: each pixel moves that share
//                     of the way to the image's mean (1: a flat grey image)
// Torch-free (the CLI and Trainer.h name shifts); ShiftImages.h applies them.
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

enum class ShiftKind { Rotate, Translate, Noise, Contrast };

/// "rotate", "translate", "noise" or "contrast".
std::string shiftKindName(ShiftKind kind);

struct DatasetShift {
  ShiftKind kind = ShiftKind::Rotate;
  double level = 0;
};

/// "KIND:LEVEL[,LEVEL...]", e.g. "rotate:0,15,30": one shift per level. Throws ConfigError
/// naming the kinds for an unknown kind, and the range for a level outside it.
std::vector<DatasetShift> parseShifts(const std::string& text);

/// Every level of several --shift flags, one flag per kind, in the order given. Returns the
/// levels, or in `repeated` what to say where two flags give the same kind ("--shift rotate:0
/// and --shift rotate:5 are both rotate; give its levels in one --shift (rotate:L1,L2,...)"):
/// a kind scored twice over, or a slip, that would put the kind in a table twice (and its
/// figures over each other). Throws ConfigError as parseShifts does.
std::vector<DatasetShift> shiftsOfFlags(const std::vector<std::string>& flags, std::string& repeated);

}  // namespace ensemble
