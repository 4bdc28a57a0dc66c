// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/Dataset.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>

#include "core/common/Crc32.h"
#include "core/common/Error.h"
#include "core/data/IdxFile.h"

namespace ensemble {

int64_t Dataset::size() const { return labels.defined() ? labels.size(0) : 0; }
int64_t Dataset::height() const { return images.size(2); }
int64_t Dataset::width() const { return images.size(3); }

Dataset Dataset::firstSamples(int64_t count) const {
  if (count <= 0 || count >= size()) return *this;
  Dataset subset = *this;
  subset.images = images.narrow(0, 0, count);
  subset.labels = labels.narrow(0, 0, count);
  return subset;
}

std::string Dataset::contentDigest() const {
  std::uint32_t crc = 0;
  for (const at::Tensor& part : {images.to(torch::kCPU, torch::kUInt8).contiguous(), labels.to(torch::kCPU, torch::kInt64).contiguous()}) {
    crc = crc32Extend(crc, part.data_ptr(), std::size_t(part.nbytes()));
  }
  char text[9];
  std::snprintf(text, sizeof text, "%08lx", static_cast<unsigned long>(crc));
  return text;
}

int64_t classesOfLabels(const IdxArray& labels) {
  return labels.data.empty() ? 0 : int64_t(*std::max_element(labels.data.begin(), labels.data.end())) + 1;
}

Dataset datasetFromIdx(const IdxArray& images, const IdxArray& labels,
                       const std::string& imagesOrigin, const std::string& labelsOrigin) {
  const std::vector<int64_t> dims(images.dims.begin(), images.dims.end());
  const std::vector<int64_t> shape = imageFileShape(dims);
  if (shape.empty()) throw DatasetError(imagesOrigin + notImageDimensions(dims));
  if (labels.dims.size() != 1) {
    throw DatasetError(labelsOrigin + " has " + std::to_string(labels.dims.size()) +
                       " dimensions; a label file has 1 (count)" +
                       (labels.dims.size() == 3 ? ": is it an image file?" : ""));
  }
  if (images.count() != labels.count()) {
    throw DatasetError(imagesOrigin + " holds " + std::to_string(images.count()) +
                       " images but " + labelsOrigin + " holds " +
                       std::to_string(labels.count()) +
                       " labels; the two files must come from the same split");
  }
  if (images.count() == 0) throw DatasetError(imagesOrigin + " holds no images");
  const int64_t rows = shape[1], cols = shape[2];
  if (rows == 0 || cols == 0) {
    throw DatasetError(imagesOrigin + " declares empty images (" + std::to_string(rows) + "x" +
                       std::to_string(cols) + ")");
  }
  const int64_t n = int64_t(images.count());
  Dataset dataset;
  dataset.classes = classesOfLabels(labels);
  dataset.origin = imagesOrigin;
  dataset.labelsOrigin = labelsOrigin;
  dataset.images = torch::from_blob(const_cast<std::uint8_t*>(images.data.data()),
                                    {n, 1, rows, cols}, torch::kUInt8)
                       .clone();
  dataset.labels = torch::from_blob(const_cast<std::uint8_t*>(labels.data.data()), {n},
                                    torch::kUInt8)
                       .to(torch::kInt64);
  return dataset;
}

}  // namespace ensemble
