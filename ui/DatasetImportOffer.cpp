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
#include "ui/DialogFolders.h"
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
  QString title, holds;            // %1 the folder
  QString question, questionOpen;  // after `holds`; %1 where the import goes
  QString questionElsewhere;       // after `holds`, where that cannot be written; %1 its parent
  QString target;
  std::function<void(const std::string& target)> import;
};

/// Asks about `candidate` and does what the user chose. Where the folder beside it cannot be
/// written (a read-only share, a dataset under /usr/share), the user picks where it goes.
ImportOffer ask(QWidget* parent, const QString& folder, const Candidate& candidate) {
  const bool importedBefore = holdsADataset(candidate.target);
  const QString targetParent = QFileInfo(candidate.target).absolutePath();
  const bool elsewhere = !importedBefore && !QFileInfo(targetParent).isWritable();
  const QString question = importedBefore ? candidate.questionOpen.arg(candidate.target)
                           : elsewhere    ? candidate.questionElsewhere.arg(targetParent)
                                          : candidate.question.arg(candidate.target);
  QMessageBox box(QMessageBox::Question, candidate.title, candidate.holds.arg(folder) + question, QMessageBox::Cancel,
                  parent);
  QPushButton* accept = box.addButton(importedBefore ? tr("Open") : elsewhere ? tr("Import into…") : tr("Import"),
                                      QMessageBox::AcceptRole);
  box.setDefaultButton(accept);
  box.exec();
  ImportOffer offer;
  offer.offered = true;
  if (box.clickedButton() != accept) return offer;
  if (importedBefore) {
    offer.folder = candidate.target;
    return offer;
  }
  QString target = candidate.target;
  if (elsewhere) {
    const QString chosen = dialogs::existingDirectory(parent, tr("Import into a folder"), dialogs::Place::Datasets);
    if (chosen.isEmpty()) return offer;
    target = QDir(chosen).filePath(QFileInfo(candidate.target).fileName());
    if (holdsADataset(target)) {  // imported there before: opened, not refused as a folder that holds IDX files
      offer.folder = target;
      return offer;
    }
  }
  QApplication::setOverrideCursor(Qt::WaitCursor);  // Fashion-MNIST's 155 MB of CSV: about 2 s
  try {
    candidate.import(target.toStdString());
    offer.folder = target;
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
    const QString train = QFileInfo(QString::fromStdString(csv.train)).fileName();
    const QString test = QFileInfo(QString::fromStdString(csv.test)).fileName();
    return ask(parent, folder,
               {tr("Import CSV files"),
                tr("The folder %1 holds CSV files, %2 and %3, not the IDX files of an MNIST-format folder. ")
                    .arg(QStringLiteral("%1"), train, test),
                tr("Import them, a label and its pixels a row (as Kaggle's Fashion-MNIST), into the MNIST-format "
                   "folder %1, and open that?"),
                tr("They were imported before into %1: open that folder?"),
                tr("Its import, a label and its pixels a row (as Kaggle's Fashion-MNIST), cannot be written beside it: "
                   "%1 is read-only. Import them into a folder you choose, and open that?"),
                QString::fromStdString(importFolderFor(folder.toStdString())),
                [csv](const std::string& target) {
                  importCsvDataset({csv.train, csv.test, target, 0, 0}, checkDataset);
                }});
  }
  const std::vector<std::string> archives = npzFilesIn(folder.toStdString());
  if (archives.size() == 1) {
    const std::string npz = QDir(folder).filePath(QString::fromStdString(archives.front())).toStdString();
    return ask(parent, folder,
               {tr("Import a NumPy archive"),
                tr("The folder %1 holds the NumPy archive %2, not the IDX files of an MNIST-format folder. ")
                    .arg(QStringLiteral("%1"), QString::fromStdString(archives.front())),
                tr("Import its arrays x_train, y_train, x_test and y_test (as Keras's mnist.npz holds them) into the "
                   "MNIST-format folder %1, and open that?"),
                tr("It was imported before into %1: open that folder?"),
                tr("Its import cannot be written beside it: %1 is read-only. Import its arrays x_train, y_train, x_test "
                   "and y_test (as Keras's mnist.npz holds them) into a folder you choose, and open that?"),
                QString::fromStdString(importFolderForNpz(npz)),
                [npz](const std::string& target) { importNpzDataset({npz, target, 0, 0}, checkDataset); }});
  }
  return {};
}

}  // namespace ensemble::ui
