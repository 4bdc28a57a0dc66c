// SPDX-License-Identifier: GPL-3.0-or-later
#include "FigureExport.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QEventLoop>
#include <QLineEdit>
#include <QTabWidget>
#include <QTemporaryDir>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
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

  /// `name`.png and `name`.csv of `plots` (side by side), and a screenshot of the page they are on.
  void save(const QList<QCustomPlot*>& plots, QWidget* page, const QString& name) {
    m_view.pages()->setCurrentWidget(page);
    QCoreApplication::processEvents();
    for (QCustomPlot* plot : plots) plot->replot();
    for (const QString suffix : {".png", ".csv"}) write(name + suffix, exportPlots(plots, m_folder.filePath(name + suffix)));
    const QString screenshot = "page-" + name + ".png";
    write(screenshot, savePng(m_folder.filePath(screenshot), m_view.grab().toImage()));
  }

  void write(const QString& file, const QString& error) {
    if (!error.isEmpty()) throw FigureError{QObject::tr("%1: %2").arg(m_folder.filePath(file), error)};
    m_written << file;
  }

  /// The files written, in order (into the staging folder).
  const QStringList& written() const { return m_written; }

 private:
  UncertaintyView& m_view;
  QDir m_folder;
  QStringList m_written;
};

/// The output folder, written all at once: files are made in a staging folder inside it and
/// moved in only when every figure was made, so a request that fails midway (an
/// out-of-distribution set of another image size is found only when scored) leaves the folder
/// as it was, and one that did not exist is not left behind.
class StagedFolder {
 public:
  explicit StagedFolder(const QString& folder) : m_folder(folder), m_existed(QFileInfo::exists(folder)) {
    if (QFileInfo(folder).exists() && !QFileInfo(folder).isDir()) {
      throw FigureError{QObject::tr("--figures %1 is a file; name a folder for the figures (a new one, or one --figures "
                                    "wrote)").arg(folder)};
    }
    if (!QDir().mkpath(folder)) {
      throw FigureError{QObject::tr("cannot create %1; name a folder you can write to").arg(folder)};
    }
    m_staging = std::make_unique<QTemporaryDir>(QDir(folder).filePath(".incoming-figures-XXXXXX"));
    if (!m_staging->isValid()) throw FigureError{QObject::tr("cannot write in %1: %2").arg(folder, m_staging->errorString())};
  }
  ~StagedFolder() {
    m_staging.reset();
    if (!m_existed) QDir().rmdir(m_folder);  // only while empty: nothing was moved in
  }
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  QString stagingPath() const { return m_staging->path(); }

  /// Moves `files` into the folder (over earlier ones of the same names), printing each.
  void moveIn(const QStringList& files) {
    const QDir staging(stagingPath()), folder(m_folder);
    // rename(2) cannot put a file over a folder: found before the first move, so that a
    // refusal leaves the folder's earlier figures as they were rather than half replaced.
    for (const QString& file : files) {
      if (QFileInfo(folder.filePath(file)).isDir()) {
        throw FigureError{QObject::tr("cannot write %1: a folder of that name is in the way; move it away or choose another "
                                      "--figures folder")
                              .arg(folder.filePath(file))};
      }
    }
    for (const QString& file : files) {
      // rename(2) replaces an earlier file whole; QFile::rename would refuse it.
      if (std::rename(QFile::encodeName(staging.filePath(file)).constData(),
                      QFile::encodeName(folder.filePath(file)).constData()) != 0) {
        throw FigureError{QObject::tr("cannot move %1 into %2: %3").arg(file, m_folder, QString::fromLocal8Bit(std::strerror(errno)))};
      }
      std::printf("wrote %s\n", qPrintable(folder.filePath(file)));
    }
    m_existed = true;  // it holds them now
  }

  /// Removes the files of `owned` that an earlier set left and this one did not write (a
  /// shift kind not asked for this time), printing each: the folder holds one set of figures,
  /// not this set beside the parts of an older one. Other files are not touched.
  void removeLeftovers(const QStringList& owned, const QStringList& written) {
    const QDir folder(m_folder);
    for (const QString& file : owned) {
      const QString path = folder.filePath(file);
      if (written.contains(file) || !QFileInfo(path).isFile()) continue;
      QFile leftover(path);
      if (leftover.remove()) {
        std::printf("removed %s (an earlier set's; this one has none)\n", qPrintable(path));
      } else {
        std::fprintf(stderr, "ensemble-lab: warning: %s is an earlier set's, not of this one, and stays: %s\n",
                     qPrintable(path), qPrintable(leftover.errorString()));
      }
    }
  }

 private:
  QString m_folder;
  bool m_existed;
  std::unique_ptr<QTemporaryDir> m_staging;
};

/// Every file --figures writes, for some request: each figure's .png, .csv and page
/// screenshot (each shift kind the page offers), and the contact sheet.
QStringList everyFigureFile(ShiftView& shift) {
  QStringList figures{"reliability", "out-of-distribution", "confusion-matrix"};
  for (int i = 0; i < shift.kindBox()->count(); ++i) {
    figures << "shift-" + QString::fromStdString(shiftKindName(ShiftKind(shift.kindBox()->itemData(i).toInt())));
  }
  QStringList files{"gallery.png"};
  for (const QString& figure : figures) files << figure + ".png" << figure + ".csv" << "page-" + figure + ".png";
  return files;
}

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
    StagedFolder output(request.outputFolder);
    FigureWriter writer(view, output.stagingPath());

    const RunRecord first = RunRecord::load(request.runs.front());
    if (first.summary && first.summary->evaluation) {
      view.showResult(*first.summary->evaluation, first.legendLabel());
      // The second run over the first, as the window draws two selected runs.
      const RunRecord second = request.runs.size() > 1 ? RunRecord::load(request.runs[1]) : RunRecord{};
      const bool compared = second.summary && second.summary->evaluation;
      view.showComparison(compared ? &*second.summary->evaluation : nullptr, compared ? second.legendLabel() : QString());
      writer.save({view.reliability()->plot()}, view.reliability(), "reliability");
    }
    ShiftView* shift = view.shift();
    for (std::size_t i = 0; i < shiftKinds.size(); ++i) {
      const QString name = "shift-" + QString::fromStdString(shiftKindName(shiftKinds[i]));
      shift->kindBox()->setCurrentIndex(shift->kindBox()->findData(int(shiftKinds[i])));
      shift->levelsEdit()->setText(request.shifts[int(i)].section(':', 1));
      writer.compute(name, [&] { shift->compute(); });
      writer.save({shift->plot()}, shift, name);
    }
    if (!request.ood.isEmpty()) {
      writer.compute("out-of-distribution", [&] { view.outOfDistribution()->compute(); });
      writer.save({view.outOfDistribution()->plot()}, view.outOfDistribution(), "out-of-distribution");
    }
    MistakesView* mistakes = view.mistakes();
    writer.compute("confusion matrix", [&] { mistakes->compute(); });
    writer.save(mistakes->shownConfusionPlots(), mistakes, "confusion-matrix");  // both runs' where two are compared
    writer.write("gallery.png", mistakes->saveContactSheet(QDir(output.stagingPath()).filePath("gallery.png")));
    output.moveIn(writer.written());
    output.removeLeftovers(everyFigureFile(*shift), writer.written());
    return 0;
  } catch (const FigureError& e) {
    std::fprintf(stderr, "ensemble-lab: %s\n", qPrintable(e.message));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ensemble-lab: %s\n", e.what());
  }
  return 1;
}

}  // namespace ensemble::app
