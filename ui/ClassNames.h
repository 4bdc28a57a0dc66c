// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Names of a dataset's classes for labels under images: Fashion-MNIST's ten, the class
// number for any other dataset (an MNIST-format folder carries no names).
#include <QString>
#include <cstdint>

namespace ensemble::ui {

/// A short name for class `label` of `dataset` (a name or folder, as the run recorded it).
QString className(const QString& dataset, int64_t label);

}  // namespace ensemble::ui
