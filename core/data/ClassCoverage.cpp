// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/ClassCoverage.h"

#include <torch/torch.h>

#include "core/common/FieldMention.h"
#include "core/data/Dataset.h"

namespace ensemble {
namespace {

/// Images per class in `labels`, for classes 0 .. classes - 1 (larger labels are refused
/// when the dataset loads).
std::vector<int64_t> imagesPerClass(const torch::Tensor& labels, int64_t classes) {
  const torch::Tensor counts = torch::bincount(labels.to(torch::kCPU).flatten(), {}, classes).to(torch::kInt64).contiguous();
  return std::vector<int64_t>(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + std::min(classes, counts.numel()));
}

std::string plural(std::size_t count, const std::string& one, const std::string& many) { return count == 1 ? one : many; }

}  // namespace

std::string formatClassList(const std::vector<int64_t>& classes) {
  std::string text;
  for (std::size_t i = 0; i < classes.size();) {
    std::size_t last = i;
    while (last + 1 < classes.size() && classes[last + 1] == classes[last] + 1) ++last;
    if (!text.empty()) text += ", ";
    text += std::to_string(classes[i]);
    // Two in a row are listed, three or more are a range.
    if (last == i + 1) text += ", " + std::to_string(classes[last]);
    if (last > i + 1) text += "-" + std::to_string(classes[last]);
    i = last + 1;
  }
  return text;
}

std::vector<std::string> classCoverageNotices(const DatasetPair& data, int64_t classes, int64_t trainLimit) {
  if (classes <= 0 || data.train.size() == 0) return {};
  const std::vector<int64_t> train = imagesPerClass(data.train.labels, classes);
  const std::vector<int64_t> test = imagesPerClass(data.test.labels, classes);
  // Labels that skip values (EMNIST letters' 1-26) leave outputs no image has: harmless, and
  // not said. A class the test split has and training never saw costs every image of it.
  std::vector<int64_t> untrained;
  int64_t testImages = 0;
  for (int64_t c = 0; c < classes; ++c) {
    if (train[std::size_t(c)] > 0 || test[std::size_t(c)] == 0) continue;
    untrained.push_back(c);
    testImages += test[std::size_t(c)];
  }
  std::vector<std::string> notices;
  if (!untrained.empty()) {
    const std::size_t n = untrained.size();
    std::string notice = "the training split holds no image of " + plural(n, "class ", "classes ") +
                         formatClassList(untrained) + " (" + std::to_string(n) + " of " + std::to_string(classes) +
                         " classes), which the test split holds " + std::to_string(testImages) + " image" +
                         (testImages == 1 ? "" : "s") + " of: the models cannot learn " + plural(n, "it", "them") +
                         ", and every such test image counts as a miss";
    if (trainLimit > 0 && data.train.size() == trainLimit) {
      notice += "; " + mention::field("train_limit") + " " + std::to_string(trainLimit) +
                " keeps the training file's first images, which may be sorted by class: a larger limit, or a file "
                "in mixed order, trains on every class";
    }
    notices.push_back(notice);
  }
  return notices;
}

}  // namespace ensemble
