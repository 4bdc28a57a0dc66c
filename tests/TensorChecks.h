// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Comparing a computation of ours with LibTorch's to float rounding (TestWinogradConv,
// TestCudaKernelsOnCpu): sums of many products in another order agree relative to their size.
#include <torch/torch.h>

#include <QtGlobal>

namespace testing {

/// |a - b| <= tolerance * max |b| over the finite values, and NaN in the same places.
inline bool closeRelative(const torch::Tensor& a, const torch::Tensor& b, double tolerance) {
  const torch::Tensor actual = a.to(torch::kFloat64), expected = b.to(torch::kFloat64);
  if (!torch::equal(actual.isnan(), expected.isnan())) {
    qWarning("NaN in different places");
    return false;
  }
  const double scale = expected.nan_to_num().abs().max().item<double>();
  const double error = (actual.nan_to_num() - expected.nan_to_num()).abs().max().item<double>();
  if (error > tolerance * scale) qWarning("max error %g against max value %g", error, scale);
  return error <= tolerance * scale;
}

}  // namespace testing
