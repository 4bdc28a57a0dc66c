// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/AnalysisController.h"

#include "ui/AnalysisWorker.h"

namespace ensemble::ui {

AnalysisController::AnalysisController(QObject* parent)
    : AnalysisReports(parent), m_worker(new AnalysisWorker), m_cancel(std::make_shared<std::atomic<bool>>(false)) {
  qRegisterMetaType<ShiftCurve>();
  qRegisterMetaType<OutOfDistribution>();
  qRegisterMetaType<std::shared_ptr<const Inspection>>();
  m_thread.setObjectName("analysis");
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  // Forwarded as they are emitted, in the analysis thread: the views' own connections are
  // queued into the window's thread, and a direct connection can cancel at an exact step.
  connect(m_worker, &AnalysisReports::progress, this, &AnalysisReports::progress, Qt::DirectConnection);
  connect(m_worker, &AnalysisReports::shiftCurveReady, this, &AnalysisReports::shiftCurveReady, Qt::DirectConnection);
  connect(m_worker, &AnalysisReports::outOfDistributionReady, this, &AnalysisReports::outOfDistributionReady,
          Qt::DirectConnection);
  connect(m_worker, &AnalysisReports::inspectionReady, this, &AnalysisReports::inspectionReady, Qt::DirectConnection);
  connect(m_worker, &AnalysisReports::jobEnded, this, [this](bool cancelled, const QString& error) {
    m_busy = false;
    emit busyChanged(false);
    emit jobEnded(cancelled, error);
  });
  m_thread.start();
}

AnalysisController::~AnalysisController() {
  m_cancel->store(true);  // a sweep ends at its next level
  m_thread.quit();
  m_thread.wait();
}

template <typename Job>
void AnalysisController::begin(Job job) {
  if (m_busy) return;
  m_busy = true;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  emit busyChanged(true);
  QMetaObject::invokeMethod(m_worker, [worker = m_worker, cancel = m_cancel, job] { job(*worker, cancel); },
                            Qt::QueuedConnection);
}

void AnalysisController::sweepShift(const QStringList& runDirectories, ShiftKind kind, const std::vector<double>& levels) {
  begin([=](AnalysisWorker& worker, const auto& cancel) { worker.sweepShift(runDirectories, kind, levels, cancel); });
}

void AnalysisController::scoreOutOfDistribution(const QStringList& runDirectories, const QString& dataset) {
  begin([=](AnalysisWorker& worker, const auto& cancel) { worker.scoreOutOfDistribution(runDirectories, dataset, cancel); });
}

void AnalysisController::inspect(const QStringList& runDirectories) {
  begin([=](AnalysisWorker& worker, const auto& cancel) { worker.inspect(runDirectories, cancel); });
}

void AnalysisController::cancel() { m_cancel->store(true); }

}  // namespace ensemble::ui
