#pragma once
// Every run the user has: the one training now and the past ones found in the runs folder
// (the same folders the CLI writes). One row per run with its setup and final numbers.
#include <QAbstractTableModel>
#include <QJsonObject>
#include <QVector>
#include <memory>

#include "ui/RunCurves.h"

namespace ensemble::ui {

struct RunRecord {
  QString directory;
  QJsonObject config;
  QJsonObject summary;
  std::shared_ptr<RunCurves> curves;  ///< loaded on demand for past runs, live for the current
  bool training = false;              ///< true while this window trains it

  QString name() const;
  /// Reads config.json and summary.json (missing files leave the fields empty).
  static RunRecord load(const QString& directory);
  /// Loads the curves from metrics.csv if not loaded yet; returns false when unreadable.
  bool ensureCurves(QString* error = nullptr);
};

class RunsModel final : public QAbstractTableModel {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunsModel)

 public:
  enum Column { Name, Status, Mode, Model, Devices, Lr, Momentum, Batch, Epochs, TestAccuracy, EnsembleNll, SecondsPerEpoch, ImagesPerSecond, ColumnCount };

  explicit RunsModel(QObject* parent = nullptr);

  /// Replaces the list with the run folders under `root` (newest first).
  void scan(const QString& root);
  /// Adds a run or refreshes the row of the same folder; returns its row.
  int upsert(const RunRecord& record);
  int rowOf(const QString& directory) const;
  RunRecord& record(int row) { return m_runs[row]; }
  const RunRecord& record(int row) const { return m_runs[row]; }
  void remove(int row);
  void setDirectory(int row, const QString& directory);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVector<RunRecord> m_runs;
};

}  // namespace ensemble::ui
