// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An in-memory image classification split: uint8 images and int64 labels. Images stay
// uint8 until a batch is drawn, so a copy per device costs a quarter of float storage.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace ensemble {

struct IdxArray;

/// One split (train or test) of a dataset.
struct Dataset {
  at::Tensor images;  ///< uint8, [N, 1, H, W]
  at::Tensor labels;  ///< int64, [N], values in [0, classes)
  int64_t classes = 10;
  std::string origin;        ///< where it came from, for messages
  std::string labelsOrigin;  ///< where its labels came from (a file), for messages

  int64_t size() const;
  int64_t height() const;
  int64_t width() const;
  /// The same split holding only its first `count` samples (all of them if count <= 0
  /// or count >= size()).
  Dataset firstSamples(int64_t count) const;
  /// CRC-32 of its images and labels as loaded, 8 hex digits: whether a split is the one a
  /// run was scored on (eval's note when a run's own test set changed since).
  std::string contentDigest() const;
};

/// Both splits of a dataset.
struct DatasetPair {
  Dataset train;
  Dataset test;
  std::string name;
};

/// The classes `labels` (an IDX label array) name: the largest label + 1; 0 where it holds none.
int64_t classesOfLabels(const IdxArray& labels);

/// Builds a split from an IDX image array [N, H, W] and an IDX label array [N]; its classes
/// are classesOfLabels (a folder's two splits then agree on theirs: loadDataset).
/// Throws DatasetError naming the files when the shapes are invalid.
Dataset datasetFromIdx(const IdxArray& images, const IdxArray& labels,
                       const std::string& imagesOrigin, const std::string& labelsOrigin);

}  // namespace ensemble
