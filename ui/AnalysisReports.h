// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What an analysis job reports, declared once: AnalysisWorker emits these in the analysis
// thread, and AnalysisController, which forwards them, is what the views connect to.
#include <QObject>
#include <QString>
#include <memory>

#include "ui/AnalysisResults.h"

namespace ensemble::ui {

class AnalysisReports : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(AnalysisReports)

 public:
  explicit AnalysisReports(QObject* parent = nullptr) : QObject(parent) {}

 signals:
  void progress(int done, int total, const QString& what);
  void shiftCurveReady(const ensemble::ui::ShiftCurve& curve);
  void outOfDistributionReady(const ensemble::ui::OutOfDistribution& scores);
  void inspectionReady(const std::shared_ptr<const ensemble::ui::Inspection>& inspection);
  /// The job is over; `error` is empty unless it failed.
  void jobEnded(bool cancelled, const QString& error);
};

}  // namespace ensemble::ui
