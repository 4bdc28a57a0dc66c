// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/DatasetImportOffer.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <functional>

#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/data/CsvDataset.h"
#include "core/data/DatasetSource.h"
#include "core/data/NpzDataset.h"
#include "core/runs/DatasetImport.h"
#include "ui/EngineMessage.h"

namespace ensemble::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("DatasetImportOffer", text); }

/// Whether `folder` opens as a dataset already (an earlier import's).
bool holdsADataset(const QString& folder) {
  try {
    trainingSampleCount(folder.toStdString());
    return true;
  } catch (const Error&) {
    return false;
  }
}

/// What can be imported from a folder: the question to ask, the folder it makes, and the import.
struct Candidate {
  QString title, question, questionOpen;  // %1 the folder, %2 where the import goes
  QString target;
  std::function<void()> import;
};

/// Asks about `candidate` and does what the user chose.
ImportOffer ask(QWidget* parent, const QString& folder, const Candidate& candidate) {
  const bool importedBefore = holdsADataset(candidate.target);
  QMessageBox box(QMessageBox::Question, candidate.title,
                  (importedBefore ? candidate.questionOpen : candidate.question).arg(folder, candidate.target),
                  QMessageBox::Cancel, parent);
  QPushButton* accept = box.addButton(importedBefore ? tr("Open") : tr("Import"), QMessageBox::AcceptRole);
  box.setDefaultButton(accept);
  box.exec();
  ImportOffer offer;
  offer.offered = true;
  if (box.clickedButton() != accept) return offer;
  if (importedBefore) {
    offer.folder = candidate.target;
    return offer;
  }
  QApplication::setOverrideCursor(Qt::WaitCursor);  // Fashion-MNIST's 155 MB of CSV: about 2 s
  try {
    candidate.import();
    offer.folder = candidate.target;
  } catch (...) {  // any failure is said, and the window stays up
    offer.error = inLabels(describeCurrentException());
  }
  QApplication::restoreOverrideCursor();
  return offer;
}

}  // namespace

ImportOffer offerDatasetImport(QWidget* parent, const QString& folder) {
  const CsvFilesFound csv = csvFilesIn(folder.toStdString());
  if (!csv.train.empty()) {
    CsvImportOptions options;
    options.trainCsv = csv.train;
    options.testCsv = csv.test;
    options.folder = importFolderFor(folder.toStdString());
    const QString train = QFileInfo(QString::fromStdString(csv.train)).fileName();
    const QString test = QFileInfo(QString::fromStdString(csv.test)).fileName();
    const QString holds = tr("The folder %1 holds CSV files, %3 and %4, not the IDX files of an MNIST-format folder. ");
    return ask(parent, folder,
               {tr("Import CSV files"),
                (holds + tr("Import them, a label and its pixels a row (as Kaggle's Fashion-MNIST), into the MNIST-format "
                            "folder %2, and open that?"))
                    .arg("%1", "%2", train, test),
                (holds + tr("They were imported before into %2: open that folder?")).arg("%1", "%2", train, test),
                QString::fromStdString(options.folder), [options] { importCsvDataset(options, checkDataset); }});
  }
  const std::vector<std::string> archives = npzFilesIn(folder.toStdString());
  if (archives.size() == 1) {
    NpzImportOptions options;
    options.npz = QDir(folder).filePath(QString::fromStdString(archives.front())).toStdString();
    options.folder = importFolderForNpz(options.npz);
    const QString name = QString::fromStdString(archives.front());
    const QString holds = tr("The folder %1 holds the NumPy archive %3, not the IDX files of an MNIST-format folder. ");
    return ask(parent, folder,
               {tr("Import a NumPy archive"),
                (holds + tr("Import its arrays x_train, y_train, x_test and y_test (as Keras's mnist.npz holds them) into "
                            "the MNIST-format folder %2, and open that?"))
                    .arg("%1", "%2", name),
                (holds + tr("It was imported before into %2: open that folder?")).arg("%1", "%2", name),
                QString::fromStdString(options.folder), [options] { importNpzDataset(options, checkDataset); }});
  }
  return {};
}

}  // namespace ensemble::ui
