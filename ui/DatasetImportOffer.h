// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A folder picked as a dataset that holds the files other tools save datasets as instead of
// IDX files is offered an import, as `ensemble-lab-cli import` makes it, into an MNIST-format
// folder, which the form then opens (it had only been refused: "has no
// train-images-idx3-ubyte"): CSV files (Kaggle's Fashion-MNIST: fashion-mnist_train.csv and
// fashion-mnist_test.csv) into FOLDER-idx beside it, or one NumPy archive (Keras's
// ~/.keras/datasets/mnist.npz) into NAME-idx beside the archive.
#include <QString>

class QWidget;

namespace ensemble::ui {

struct ImportOffer {
  bool offered = false;  // the folder held something to import, and the user was asked
  QString folder;        // the dataset folder to open: imported, or imported before
  QString error;         // why the import failed
};

/// Where `folder` holds one train and one test CSV file (core/data/CsvDataset.h), or else one
/// .npz archive (core/data/NpzDataset.h), asks whether to import them (or to open the folder
/// an earlier import wrote) and does what the user chose.
ImportOffer offerDatasetImport(QWidget* parent, const QString& folder);

}  // namespace ensemble::ui
