// SPDX-License-Identifier: GPL-3.0-or-later
#include "FigureExport.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QEventLoop>
#include <QLineEdit>
#include <QTabWidget>
#include <cstdio>
#include <vector>

#include "ui/AnalysisController.h"
#include "ui/ConfusionMatrixPlot.h"
#include "ui/MistakesView.h"
#include "ui/OodView.h"
#include "ui/PlotExport.h"
#include "ui/SaveFile.h"
#include "ui/ReliabilityDiagram.h"
#include "ui/RunsModel.h"
#include "ui/ShiftView.h"
#include "ui/UncertaintyView.h"

namespace ensemble::app {
namespace {

using namespace ensemble::ui;

/// Why a figure could not be made.
struct FigureError {
  QString message;
};

class FigureWriter {
 public:
  FigureWriter(UncertaintyView& view, const QString& folder) : m_view(view), m_folder(folder) {}

  /// Starts a job with `start` and waits for it; throws its error, or says that no job
  /// started (the page refused what it was given: its own message says why).
  template <typename Start>
  void compute(const QString& what, Start start) {
    QEventLoop loop;
    QString error;
    const auto connection = QObject::connect(m_view.analysis(), &AnalysisController::jobEnded, &loop,
                                             [&](bool, const QString& message) {
                                               error = message;
                                               loop.quit();
                                             });
    start();
    const bool started = m_view.analysis()->isBusy();
    if (started) loop.exec();
    QObject::disconnect(connection);
    if (!error.isEmpty()) throw FigureError{error};
    if (!started) throw FigureError{QObject::tr("the %1 could not be computed").arg(what)};
  }

  /// `name`.png and `name`.csv of `plot`, and a screenshot of the page it is on.
  void save(QCustomPlot* plot, QWidget* page, const QString& name) {
    m_view.pages()->setCurrentWidget(page);
    QCoreApplication::processEvents();
    plot->replot();
    for (const QString suffix : {".png", ".csv"}) write(name + suffix, exportPlot(plot, m_folder.filePath(name + suffix)));
    const QString screenshot = "page-" + name + ".png";
    write(screenshot, savePng(m_folder.filePath(screenshot), m_view.grab().toImage()));
  }

  void write(const QString& file, const QString& error) {
    if (!error.isEmpty()) throw FigureError{QObject::tr("%1: %2").arg(m_folder.filePath(file), error)};
    std::printf("wrote %s\n", qPrintable(m_folder.filePath(file)));
  }

 private:
  UncertaintyView& m_view;
  QDir m_folder;
};

RunChoices choicesOf(const QStringList& runs) {
  RunChoices choices;
  for (const QString& directory : runs) {
    const RunRecord record = RunRecord::load(directory);
    if (!record.config) throw FigureError{QObject::tr("%1 is not a readable run folder: %2").arg(directory, record.problem)};
    choices.push_back({directory, record.legendLabel()});
  }
  return choices;
}

}  // namespace

int exportFigures(const FigureRequest& request) {
  try {
    if (request.runs.isEmpty() || request.runs.size() > 2) {
      throw FigureError{QObject::tr("--compare takes one or two run folders, comma-separated")};
    }
    // Everything asked for is checked before a file is written: a bad request leaves nothing.
    std::vector<ShiftKind> shiftKinds;
    for (const QString& spec : request.shifts) shiftKinds.push_back(parseShifts(spec.toStdString()).front().kind);
    UncertaintyView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1280, 620);
    view.show();
    view.setRuns(choicesOf(request.runs));
    if (!request.ood.isEmpty()) {
      // The same check as the page's picker: a set made from the run, a dataset name, or a folder.
      if (const QString problem = view.outOfDistribution()->chooseSet(request.ood); !problem.isEmpty()) {
        throw FigureError{QObject::tr("--ood %1").arg(problem)};
      }
    }
    if (!QDir().mkpath(request.outputFolder)) throw FigureError{QObject::tr("cannot create %1").arg(request.outputFolder)};
    FigureWriter writer(view, request.outputFolder);

    const RunRecord first = RunRecord::load(request.runs.front());
    if (first.summary && first.summary->evaluation) {
      view.showResult(*first.summary->evaluation, first.legendLabel());
      // The second run over the first, as the window draws two selected runs.
      const RunRecord second = request.runs.size() > 1 ? RunRecord::load(request.runs[1]) : RunRecord{};
      const bool compared = second.summary && second.summary->evaluation;
      view.showComparison(compared ? &*second.summary->evaluation : nullptr, compared ? second.legendLabel() : QString());
      writer.save(view.reliability()->plot(), view.reliability(), "reliability");
    }
    ShiftView* shift = view.shift();
    for (std::size_t i = 0; i < shiftKinds.size(); ++i) {
      const QString name = "shift-" + QString::fromStdString(shiftKindName(shiftKinds[i]));
      shift->kindBox()->setCurrentIndex(shift->kindBox()->findData(int(shiftKinds[i])));
      shift->levelsEdit()->setText(request.shifts[int(i)].section(':', 1));
      writer.compute(name, [&] { shift->compute(); });
      writer.save(shift->plot(), shift, name);
    }
    if (!request.ood.isEmpty()) {
      writer.compute("out-of-distribution", [&] { view.outOfDistribution()->compute(); });
      writer.save(view.outOfDistribution()->plot(), view.outOfDistribution(), "out-of-distribution");
    }
    MistakesView* mistakes = view.mistakes();
    writer.compute("confusion matrix", [&] { mistakes->compute(); });
    writer.save(mistakes->confusion()->plot(), mistakes, "confusion-matrix");
    writer.write("gallery.png", mistakes->saveContactSheet(QDir(request.outputFolder).filePath("gallery.png")));
    return 0;
  } catch (const FigureError& e) {
    std::fprintf(stderr, "ensemble-lab: %s\n", qPrintable(e.message));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ensemble-lab: %s\n", e.what());
  }
  return 1;
}

}  // namespace ensemble::app
