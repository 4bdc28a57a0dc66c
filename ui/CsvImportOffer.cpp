// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/CsvImportOffer.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>

#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/data/CsvDataset.h"
#include "core/data/DatasetSource.h"
#include "core/runs/DatasetImport.h"
#include "ui/EngineMessage.h"

namespace ensemble::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("CsvImportOffer", text); }

/// Whether `folder` opens as a dataset already (an earlier import's).
bool holdsADataset(const QString& folder) {
  try {
    trainingSampleCount(folder.toStdString());
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

QString offerCsvImport(QWidget* parent, const QString& folder, QString* error) {
  const CsvFilesFound found = csvFilesIn(folder.toStdString());
  if (found.train.empty()) return {};
  const QString target = QString::fromStdString(importFolderFor(folder.toStdString()));
  const QString train = QFileInfo(QString::fromStdString(found.train)).fileName();
  const QString test = QFileInfo(QString::fromStdString(found.test)).fileName();
  const bool importedBefore = holdsADataset(target);
  QMessageBox box(QMessageBox::Question, tr("Import CSV files"),
                  importedBefore
                      ? tr("The folder %1 holds CSV files, %2 and %3, not the IDX files of an MNIST-format folder. They were "
                           "imported before into %4: open that folder?")
                            .arg(folder, train, test, target)
                      : tr("The folder %1 holds CSV files, %2 and %3, not the IDX files of an MNIST-format folder. Import them, "
                           "a label and its pixels a row (as Kaggle's Fashion-MNIST), into the MNIST-format folder "
                           "%4, and open that?")
                            .arg(folder, train, test, target),
                  QMessageBox::Cancel, parent);
  QPushButton* accept = box.addButton(importedBefore ? tr("Open") : tr("Import"), QMessageBox::AcceptRole);
  box.setDefaultButton(accept);
  box.exec();
  if (box.clickedButton() != accept) return {};
  if (importedBefore) return target;
  CsvImportOptions options;
  options.trainCsv = found.train;
  options.testCsv = found.test;
  options.folder = target.toStdString();
  QApplication::setOverrideCursor(Qt::WaitCursor);  // Fashion-MNIST's 155 MB of CSV: about 2 s
  try {
    importCsvDataset(options, checkDataset);
  } catch (...) {  // any failure is said, and the window stays up
    QApplication::restoreOverrideCursor();
    *error = inLabels(describeCurrentException());
    return {};
  }
  QApplication::restoreOverrideCursor();
  return target;
}

}  // namespace ensemble::ui
