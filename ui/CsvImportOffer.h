// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A folder picked as a dataset that holds CSV files instead of IDX files (Kaggle's
// Fashion-MNIST: fashion-mnist_train.csv and fashion-mnist_test.csv) is offered an import,
// as `ensemble-lab-cli import` makes it, into an MNIST-format folder beside it, which the
// form then opens. (It had only been refused: "has no train-images-idx3-ubyte".)
#include <QString>

class QWidget;

namespace ensemble::ui {

/// Where `folder` holds one train and one test CSV file (core/data/CsvDataset.h), asks
/// whether to import them into FOLDER-idx (or to open that folder, where an earlier import
/// wrote it) and does what the user chose. Returns the dataset folder to open, or empty:
/// no such pair, the user declined, or the import failed (then `*error` says why).
QString offerCsvImport(QWidget* parent, const QString& folder, QString* error);

}  // namespace ensemble::ui
