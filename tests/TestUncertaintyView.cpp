// SPDX-License-Identifier: GPL-3.0-or-later
// The Uncertainty view as a user drives it (offscreen), on real runs trained here: the
// dataset-shift sweep for two runs overlaid (level 0 equal to the plain evaluation), its
// cancel, the out-of-distribution histograms and AUROCs (and the refusal of a set of
// another image size), the confusion matrix whose cells filter the gallery, the contact
// sheet and every plot's CSV. Screenshots of each page are kept in the build folder.
#include <qcustomplot.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QProcess>
#include <QScrollBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include "core/train/RunAnalysis.h"
#include "core/train/Trainer.h"
#include "tests/IdxSplitFiles.h"
#include "tests/OwnTimeTimer.h"
#include "tests/RunStatusCheck.h"
#include "ui/RunsModel.h"
#include "ui/AnalysisController.h"
#include "ui/ConfusionMatrixPlot.h"
#include "ui/GalleryModel.h"
#include "ui/MistakesView.h"
#include "ui/OodView.h"
#include "ui/PlotExport.h"
#include "ui/ReliabilityDiagram.h"
#include "ui/ShiftView.h"
#include "ui/UncertaintyView.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

#if defined(ENSEMBLELAB_SANITIZED)
constexpr qint64 kMaxTickGapMs = 250;  // sanitized builds run several times slower
#else
constexpr qint64 kMaxTickGapMs = 100;
#endif

/// An MNIST-format folder of `count` `side`x`side` images of a fixed pixel pattern (for
/// both splits): data the runs below never saw.
void writeForeignDataset(const QString& folder, int count, int side) {
  QDir().mkpath(folder);
  for (const QString split : {"train", "t10k"}) idx_files::writeIdxSplit(folder, split, {count, side, side, 10});
}

/// A text file's lines, empty ones left out (none where it cannot be read).
QStringList fileLines(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
}

/// Waits for the analysis job to end; returns (cancelled, error).
std::pair<bool, QString> waitForJob(AnalysisController& analysis, int timeoutMs = 120000) {
  QSignalSpy ended(&analysis, &AnalysisController::jobEnded);
  if (!ended.wait(timeoutMs)) return {false, "timed out"};
  return {ended.front()[0].toBool(), ended.front()[1].toString()};
}

QVector<double> valuesOf(QCPGraph* graph) {
  QVector<double> values;
  for (const QCPGraphData& point : *graph->data()) values << point.value;
  return values;
}

}  // namespace

class TestUncertaintyView final : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;
  QString m_ensemble, m_single;
  std::unique_ptr<UncertaintyView> m_view;

  RunChoices bothRuns() const { return {{m_ensemble, "ensemble of 3", "synthetic"}, {m_single, "single", "synthetic"}}; }

  void screenshot(QWidget* page, const QString& name) {
    m_view->pages()->setCurrentWidget(page);
    QCoreApplication::processEvents();
    QVERIFY(m_view->grab().save(QDir::current().filePath(name)));
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    ExperimentConfig config;
    config.dataset = "synthetic";
    config.batchSize = 64;
    config.epochs = 2;
    config.trainLimit = 1024;
    config.testLimit = 300;
    config.mode = TrainingMode::Ensemble;
    config.devices = "cpu*3";
    m_ensemble = m_root.filePath("ensemble");
    REQUIRE_COMPLETED(Trainer::create(config, m_ensemble.toStdString())->run(nullptr, nullptr));
    config.mode = TrainingMode::Single;
    config.devices = "cpu";
    m_single = m_root.filePath("single");
    REQUIRE_COMPLETED(Trainer::create(config, m_single.toStdString())->run(nullptr, nullptr));
    m_view = std::make_unique<UncertaintyView>();
    m_view->resize(1200, 560);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_view->setRuns(bothRuns());
  }

  // A page not computed yet has nothing to export: its Export… says so before asking where,
  // and a data export writes no file (it had written the CSV header and said "Saved").
  void anUncomputedPageHasNothingToExport() {
    UncertaintyView fresh;
    fresh.setRuns(bothRuns());
    fresh.resize(1200, 560);
    fresh.show();
    QVERIFY(QTest::qWaitForWindowExposed(&fresh));
    const QString csv = m_root.filePath("nothing.csv");
    QVERIFY2(exportPlot(fresh.shift()->plot(), csv).contains("nothing to export"), qPrintable(exportPlot(fresh.shift()->plot(), csv)));
    QVERIFY(!QFileInfo::exists(csv));
    QSignalSpy exported(&fresh, &UncertaintyView::exported);
    bool askedWhere = false;
    QTimer::singleShot(300, [&askedWhere] {
      if (QWidget* dialog = QApplication::activeModalWidget()) {
        askedWhere = true;
        dialog->close();
      }
    });
    QToolButton* button = nullptr;
    for (QToolButton* candidate : fresh.shift()->findChildren<QToolButton*>()) {
      if (candidate->text() == QString("Export…")) button = candidate;
    }
    QVERIFY(button);
    button->click();
    QTest::qWait(400);
    QVERIFY(!askedWhere);
    QCOMPARE(exported.count(), 1);
    QVERIFY2(exported.first().first().toString().contains("nothing to export"), qPrintable(exported.first().first().toString()));
  }

  // The selected run's name is one line where the page has the width for it (it was squeezed
  // to a few words a line beside an empty status).
  void theRunsNameTakesTheWidthItNeeds() {
    UncertaintyView view;
    view.setRuns({{m_ensemble, "ensemble ×2 · lr 0.1 · 6k imgs", "synthetic"}});
    view.resize(650, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* label = view.findChild<QLabel*>("runLabel");
    QVERIFY(label);
    QVERIFY2(label->height() < 2 * label->fontMetrics().lineSpacing(),
             qPrintable(QString("%1 px tall, %2 px wide").arg(label->height()).arg(label->width())));
  }

  // A single model's confusion matrix is its own predictions': no page of it speaks of an
  // ensemble's vote (it did, in the title, the axis and the gallery's caption).
  void aSingleModelsConfusionMatrixNamesTheModel() {
    UncertaintyView view;
    view.setRuns({{m_single, "single", "synthetic"}});
    view.resize(1200, 560);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    MistakesView* mistakes = view.mistakes();
    view.pages()->setCurrentWidget(mistakes);
    QCustomPlot* plot = mistakes->confusion()->plot();
    QVERIFY2(!plot->xAxis->label().contains("ensemble"), qPrintable(plot->xAxis->label()));  // nor before it is computed
    QTest::mouseClick(mistakes->computeButton(), Qt::LeftButton);
    const auto [cancelled, error] = waitForJob(*view.analysis());
    QVERIFY2(error.isEmpty() && !cancelled, qPrintable(error));
    auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
    QVERIFY(title);
    QVERIFY2(title->text().contains("model's predictions"), qPrintable(title->text()));
    QCOMPARE(plot->xAxis->label(), QString("predicted by the model"));
    // A cell of mistakes, clicked: the caption says who called them.
    mistakes->gallery()->setCell(std::nullopt);
    const std::vector<ImageVerdict> verdicts = judgeImages(RunAnalysis::open(m_single.toStdString())->predict());
    const auto wrong = std::find_if(verdicts.begin(), verdicts.end(),
                                    [](const ImageVerdict& v) { return v.ensembleVote != v.label; });
    QVERIFY(wrong != verdicts.end());
    mistakes->showCell(ConfusionCell{wrong->label, wrong->ensembleVote}, 0);
    const QString caption = mistakes->caption()->text();
    QVERIFY2(caption.contains("by the model") && !caption.contains("ensemble"), qPrintable(caption));
    // And each tile: the model's vote, no ensemble or members (a single run's tiles had said
    // "ensemble Pullover").
    const QString tile = mistakes->gallery()->index(0).data(Qt::ToolTipRole).toString();
    QVERIFY2(tile.contains("\nmodel: ") && !tile.contains("ensemble") && !tile.contains("members"), qPrintable(tile));
  }

  // An ensemble whose members agree on every test image (short runs on new data often do)
  // has no image in the disagreement order: the gallery shows the most uncertain first, and
  // --figures writes its contact sheet (it had exited 1, "The gallery is empty").
  void membersThatNeverDisagreeStillFillTheGallery() {
    const QString agreeing = m_root.filePath("agreeing");
    QVERIFY(QDir().mkpath(agreeing));
    for (const QString& name : QDir(m_ensemble).entryList(QDir::Files)) QVERIFY(QFile::copy(m_ensemble + "/" + name, agreeing + "/" + name));
    const QString checkpoint = m_ensemble + "/checkpoints/" + fileLines(m_ensemble + "/checkpoints/latest").value(0).trimmed();
    const QString copied = agreeing + "/checkpoints/" + QFileInfo(checkpoint).fileName();
    QVERIFY(QDir().mkpath(copied));
    // Every member holds member 0's weights, and the manifest says so (its sizes and CRCs).
    const auto asMemberZero = [](QString name) { return name.replace(QRegularExpression("^member-\\d+"), "member-0"); };
    for (const QString& name : QDir(checkpoint).entryList(QDir::Files)) {
      if (name != "manifest.json") QVERIFY(QFile::copy(checkpoint + "/" + asMemberZero(name), copied + "/" + name));
    }
    QFile manifestFile(checkpoint + "/manifest.json");
    QVERIFY(manifestFile.open(QIODevice::ReadOnly));
    QJsonObject manifest = QJsonDocument::fromJson(manifestFile.readAll()).object();
    QJsonObject files = manifest["files"].toObject();
    for (const QString& name : files.keys()) files[name] = files[asMemberZero(name)];
    manifest["files"] = files;
    QFile rewritten(copied + "/manifest.json");
    QVERIFY(rewritten.open(QIODevice::WriteOnly) && rewritten.write(QJsonDocument(manifest).toJson()) > 0);
    rewritten.close();
    QFile latest(agreeing + "/checkpoints/latest");
    QVERIFY(latest.open(QIODevice::WriteOnly) && latest.write(QFileInfo(checkpoint).fileName().toUtf8()) > 0);
    latest.close();

    UncertaintyView view;
    view.setRuns({{agreeing, "agreeing", "synthetic"}});
    view.resize(1200, 560);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    MistakesView* mistakes = view.mistakes();
    view.pages()->setCurrentWidget(mistakes);
    QCOMPARE(GalleryOrder(mistakes->orderBox()->currentData().toInt()), GalleryOrder::Disagreement);
    QTest::mouseClick(mistakes->computeButton(), Qt::LeftButton);
    const auto [cancelled, error] = waitForJob(*view.analysis());
    QVERIFY2(error.isEmpty() && !cancelled, qPrintable(error));
    QCOMPARE(GalleryOrder(mistakes->orderBox()->currentData().toInt()), GalleryOrder::Entropy);
    QCOMPARE(mistakes->gallery()->rowCount(), 300);

    QProcess app;
    app.setProcessChannelMode(QProcess::MergedChannels);
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", m_root.filePath("figures-agreeing"), "--compare", agreeing});
    QVERIFY(app.waitForFinished(300000));
    QVERIFY2(app.exitCode() == 0, qPrintable(QString::fromUtf8(app.readAll())));
    QVERIFY(QFileInfo(m_root.filePath("figures-agreeing/gallery.png")).size() > 0);
  }

  // Both runs at each level, drawn as accuracy and ECE panels; at level 0 the numbers are
  // the plain evaluation's, exactly. The window keeps answering meanwhile: the longest gap
  // between 10 ms ticks, less the GUI thread's waits for a core (CI runs two tests on two
  // cores, and the sweep's own threads are runnable too).
  void shiftSweepOverlaysTwoRunsAndLevelZeroIsThePlainEvaluation() {
    ShiftView* shift = m_view->shift();
    shift->kindBox()->setCurrentIndex(0);  // rotation
    shift->levelsEdit()->setText("0, 30, 90");
    testing::TickGapWatch gaps;
    gaps.start();
    QSignalSpy progress(m_view->analysis(), &AnalysisController::progress);
    QTest::mouseClick(shift->computeButton(), Qt::LeftButton);
    QVERIFY(m_view->progressBar()->isVisible());
    QVERIFY(!shift->computeButton()->isEnabled());  // one job at a time
    const auto [cancelled, error] = waitForJob(*m_view->analysis());
    gaps.stop();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(!cancelled);
    QVERIFY(progress.size() >= 6);
    qInfo("longest gap between 10 ms ticks in the sweep: %lld ms, not counting waits for a core (%lld ms counting them)",
          gaps.worstMs(), gaps.worstWallMs());
    QVERIFY2(gaps.worstMs() < kMaxTickGapMs, qPrintable(QString("the window stalled for %1 ms").arg(gaps.worstMs())));

    QCustomPlot* plot = shift->plot();
    // Per panel: the ensemble, its mean member (dashed), the single model.
    QCOMPARE(plot->graphCount(), 6);
    const EvaluationResult ensemble = RunAnalysis::open(m_ensemble.toStdString())->evaluate();
    const EvaluationResult single = RunAnalysis::open(m_single.toStdString())->evaluate();
    QCPGraph* ensembleAccuracy = plot->graph(0);
    QCOMPARE(ensembleAccuracy->name(), QString("ensemble of 3"));
    QCOMPARE(ensembleAccuracy->dataCount(), 3);
    QCOMPARE(valuesOf(ensembleAccuracy)[0], ensemble.ensemble.accuracy);
    QCOMPARE(valuesOf(plot->graph(1))[0], ensemble.ensemble.ece);       // the ECE panel
    QCOMPARE(valuesOf(plot->graph(2))[0], ensemble.meanMember.accuracy);
    QCOMPARE(valuesOf(plot->graph(4))[0], single.ensemble.accuracy);
    QCOMPARE(valuesOf(plot->graph(5))[0], single.ensemble.ece);
    QVERIFY(plot->graph(1)->valueAxis() != ensembleAccuracy->valueAxis());
    // Rotating by 90 degrees costs accuracy: the figure shows a real shift.
    QVERIFY(valuesOf(ensembleAccuracy)[2] < valuesOf(ensembleAccuracy)[0]);
    screenshot(shift, "uncertainty-shift.png");
  }

  // Cancel stops the sweep between two levels; the levels done so far stay on the plot.
  void cancellingASweepKeepsTheLevelsDone() {
    ShiftView* shift = m_view->shift();
    shift->kindBox()->setCurrentIndex(shift->kindBox()->findData(int(ShiftKind::Noise)));
    shift->levelsEdit()->setText("0,0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5");
    // In the analysis thread, as the second level completes: a cancel at an exact step.
    AnalysisController* analysis = m_view->analysis();
    connect(analysis, &AnalysisController::progress, analysis, [analysis](int done) {
      if (done == 2) analysis->cancel();
    }, Qt::DirectConnection);
    shift->compute();
    QVERIFY(m_view->cancelButton()->isVisible());
    const auto [cancelled, error] = waitForJob(*m_view->analysis());
    QVERIFY(cancelled);
    QVERIFY(error.isEmpty());
    const int drawn = shift->plot()->graph(0)->dataCount();
    QCOMPARE(drawn, 2);
    QVERIFY(m_view->statusText().contains("Cancelled"));
    QVERIFY(shift->computeButton()->isEnabled());
    QVERIFY(!m_view->cancelButton()->isVisible());
    disconnect(analysis, &AnalysisController::progress, analysis, nullptr);
  }

  void badLevelsAreRefusedWithTheReason() {
    ShiftView* shift = m_view->shift();
    m_view->pages()->setCurrentWidget(shift);  // shown, whatever the slots before it left
    shift->levelsEdit()->setText("0,-3");
    QSignalSpy busy(m_view->analysis(), &AnalysisController::busyChanged);
    shift->compute();
    QCOMPARE(busy.size(), 0);  // nothing started
    QLabel* message = nullptr;
    for (QLabel* label : shift->findChildren<QLabel*>()) {
      if (label->isVisible() && label->text().contains("-3")) message = label;
    }
    QVERIFY2(message, "no message names the negative level");
    // Marked as it is typed, before Compute, in the page's words (the picker names the kind).
    shift->levelsEdit()->setText("0,abc");
    QVERIFY(!shift->levelsEdit()->styleSheet().isEmpty());
    QVERIFY2(message->isVisible() && message->text().contains("\"abc\" is not a number") &&
                 !message->text().contains("rotate"),
             qPrintable(message->text()));
    shift->levelsEdit()->setText("0,15");
    QVERIFY(shift->levelsEdit()->styleSheet().isEmpty() && !message->isVisible());
  }

  // Entropy histograms in and out, each summing to 1 (the sets differ in size), with the
  // AUROCs the engine computes in the legend; two selected runs side by side, each in a
  // panel of its own named above it.
  void outOfDistributionShowsEntropyHistogramsAndAuroc() {
    const QString foreign = m_root.filePath("foreign");
    writeForeignDataset(foreign, 200, 16);
    OodView* ood = m_view->outOfDistribution();
    QVERIFY(ood->addDatasetFolder(foreign).isEmpty());
    QTest::mouseClick(ood->computeButton(), Qt::LeftButton);
    const auto [cancelled, error] = waitForJob(*m_view->analysis());
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCustomPlot* plot = ood->plot();
    QCOMPARE(plot->plottableCount(), 6);
    QCOMPARE(plot->axisRectCount(), 2);
    const QString runs[] = {m_ensemble, m_single};
    for (int run = 0; run < 2; ++run) {
      const OodResult expected = RunAnalysis::open(runs[run].toStdString())->evaluateOutOfDistribution(foreign.toStdString());
      for (int set = 0; set < 2; ++set) {
        auto* bars = qobject_cast<QCPBars*>(plot->plottable(3 * run + set));
        QVERIFY(bars);
        QCOMPARE(bars->keyAxis()->axisRect(), plot->axisRect(run));
        double total = 0;
        for (const QCPBarsData& bar : *bars->data()) total += bar.value;
        QVERIFY(std::abs(total - 1.0) < 1e-9);
      }
      QVERIFY(plot->plottable(3 * run + 1)->name().contains("200 images"));
      const QString legend = plot->plottable(3 * run + 2)->name();
      QVERIFY2(legend.contains(QString::number(expected.ensemble.entropy, 'f', 3)), qPrintable(legend));
      if (run == 0) QVERIFY2(legend.contains(QString::number(expected.ensemble.mutualInformation, 'f', 3)), qPrintable(legend));
      QVERIFY(ood->memberScores()->text().contains(QString::number(expected.members.back().entropy, 'f', 3)));
    }
    // Each panel is named above it (the title row holds one text per panel).
    QStringList titles;
    for (int column = 0; column < 2; ++column) {
      if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, column))) titles << title->text();
    }
    QCOMPARE(titles, QStringList({"ensemble of 3", "single"}));
    screenshot(ood, "uncertainty-ood.png");
  }

  // Out of the box: the sets made from the run itself (its inverted test images, uniform
  // noise at its image size) work with any run, each described in a line. Scores stay with
  // their run and set: one run selected, its panel alone; a set not computed, none.
  void builtInOutOfDistributionSetsWorkOutOfTheBox() {
    OodView* ood = m_view->outOfDistribution();
    for (const QString& set : {QString("inverted"), QString("uniform-noise")}) {
      QVERIFY(ood->datasetBox()->findText(set) >= 0);
      ood->datasetBox()->setCurrentText(set);
      QVERIFY2(ood->description()->text().startsWith(set + ": "), qPrintable(ood->description()->text()));
      ood->compute();
      const auto [cancelled, error] = waitForJob(*m_view->analysis());
      QVERIFY2(error.isEmpty(), qPrintable(error));
      const OodResult expected = RunAnalysis::open(m_ensemble.toStdString())->evaluateOutOfDistribution(set.toStdString());
      QCOMPARE(ood->plot()->plottableCount(), 6);
      QVERIFY2(ood->plot()->plottable(2)->name().contains(QString::number(expected.ensemble.entropy, 'f', 3)),
               qPrintable(ood->plot()->plottable(2)->name()));
    }
    QVERIFY(ood->datasetBox()->findText("synthetic") < 0);  // another image size than Fashion-MNIST's models
    m_view->setRuns({{m_single, "single", "synthetic"}});
    QCOMPARE(ood->plot()->plottableCount(), 3);
    QCOMPARE(ood->plot()->axisRectCount(), 1);
    const OodResult single = RunAnalysis::open(m_single.toStdString())->evaluateOutOfDistribution("uniform-noise");
    QVERIFY(ood->plot()->plottable(2)->name().contains(QString::number(single.ensemble.entropy, 'f', 3)));
    ood->datasetBox()->setCurrentText("fashion-mnist");
    QCOMPARE(ood->plot()->plottableCount(), 0);
    QVERIFY2(ood->memberScores()->text().contains("Compute to score single on fashion-mnist"), qPrintable(ood->memberScores()->text()));
    // A name that is neither a set nor a folder is said as it is typed, in this page's words,
    // and Compute starts nothing.
    ood->datasetBox()->setCurrentText(m_root.filePath("no-such-folder"));
    QVERIFY2(ood->description()->text().contains("neither a set in the list nor a folder") &&
                 ood->description()->text().contains("inverted, uniform-noise"),
             qPrintable(ood->description()->text()));
    QVERIFY(!ood->memberScores()->text().contains("Compute to score"));
    QSignalSpy busy(m_view->analysis(), &AnalysisController::busyChanged);
    ood->compute();
    QCOMPARE(busy.size(), 0);
    QVERIFY(ood->memberScores()->text().contains("neither a set in the list nor a folder"));
    ood->datasetBox()->setCurrentText("fashion-mnist");
    m_view->setRuns(bothRuns());
  }

  // A folder is checked as it is opened, from its IDX headers: another image size than the
  // runs', or no MNIST-format files, is refused with the reason and not offered.
  void outOfDistributionOfAnotherImageSizeIsRefused() {
    const QString larger = m_root.filePath("larger");
    writeForeignDataset(larger, 20, 28);
    OodView* ood = m_view->outOfDistribution();
    const QString error = ood->addDatasetFolder(larger);
    QVERIFY2(error.contains("28x28") && error.contains("16x16") && error.contains("ensemble of 3"), qPrintable(error));
    QCOMPARE(ood->datasetBox()->findText(larger), -1);
    const QString empty = m_root.filePath("no-idx");
    QDir().mkpath(empty);
    const QString noFiles = ood->addDatasetFolder(empty);
    QVERIFY2(noFiles.contains("t10k-images-idx3-ubyte") || noFiles.contains("train-images-idx3-ubyte"), qPrintable(noFiles));
    QCOMPARE(ood->datasetBox()->findText(empty), -1);
    // Had it reached Compute (typed in), the engine refuses it as well, naming both sizes.
    QSignalSpy failed(m_view.get(), &UncertaintyView::failed);
    ood->datasetBox()->setCurrentText(larger);
    ood->compute();
    const auto [cancelled, computeError] = waitForJob(*m_view->analysis());
    QVERIFY2(computeError.contains("28") && computeError.contains("16"), qPrintable(computeError));
    QCOMPARE(failed.size(), 1);
    QVERIFY(ood->computeButton()->isEnabled());  // usable again
  }

  // The confusion matrix counts every test image; clicking a cell lists exactly its
  // images in the order chosen; the default order lists exactly the images the members
  // disagree on.
  void confusionMatrixCellsFilterTheGallery() {
    MistakesView* mistakes = m_view->mistakes();
    m_view->pages()->setCurrentWidget(mistakes);
    // Before any prediction there is nothing to save, and the button says what to do.
    QVERIFY(!mistakes->contactSheetButton()->isEnabled());
    QVERIFY(mistakes->contactSheetButton()->toolTip().contains("Predict the test set first"));
    QTest::mouseClick(mistakes->computeButton(), Qt::LeftButton);
    const auto [cancelled, error] = waitForJob(*m_view->analysis());
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const Predictions predictions = RunAnalysis::open(m_ensemble.toStdString())->predict();
    const std::vector<ImageVerdict> verdicts = judgeImages(predictions);
    const EvaluationResult evaluation = RunAnalysis::open(m_ensemble.toStdString())->evaluate();

    auto* map = qobject_cast<QCPColorMap*>(mistakes->confusion()->plot()->plottable(0));
    QVERIFY(map);
    double total = 0, diagonal = 0;
    for (int x = 0; x < 10; ++x) {
      for (int y = 0; y < 10; ++y) total += map->data()->cell(x, y);
      diagonal += map->data()->cell(x, x);
    }
    QCOMPARE(total, 300.0);
    QVERIFY(std::abs(diagonal / total - evaluation.ensemble.accuracy) < 1e-12);

    GalleryModel* gallery = mistakes->gallery();
    int disagreeing = 0;
    for (const ImageVerdict& verdict : verdicts) {
      disagreeing += std::set<int>(verdict.memberVotes.begin(), verdict.memberVotes.end()).size() > 1;
    }
    QVERIFY(disagreeing > 0);
    QCOMPARE(gallery->rowCount(), disagreeing);
    for (int row = 0; row < gallery->rowCount(); ++row) QVERIFY(verdicts[gallery->imageIndex(row)].disagreement > 0);
    const QString tile = gallery->index(0).data(Qt::ToolTipRole).toString();
    QVERIFY2(tile.contains("\nensemble: ") && tile.contains("\nmembers: "), qPrintable(tile));

    // The busiest off-diagonal cell, clicked where it is drawn.
    int bestX = 1, bestY = 0;
    for (int x = 0; x < 10; ++x) {
      for (int y = 0; y < 10; ++y) {
        if (x != y && map->data()->cell(x, y) > map->data()->cell(bestX, bestY)) bestX = x, bestY = y;
      }
    }
    QCustomPlot* plot = mistakes->confusion()->plot();
    plot->replot();
    const QPoint at(int(plot->xAxis->coordToPixel(bestX)), int(plot->yAxis->coordToPixel(bestY)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    QVERIFY(gallery->cell().has_value());
    QCOMPARE(gallery->cell()->predicted, int64_t(bestX));
    QCOMPARE(gallery->cell()->label, int64_t(bestY));
    // The order chosen stays (a click had switched it to the entropy): the cell's images
    // the members disagree on, and the caption says how many of the cell's they are.
    QCOMPARE(GalleryOrder(mistakes->orderBox()->currentData().toInt()), GalleryOrder::Disagreement);
    const int inCell = int(map->data()->cell(bestX, bestY));
    int disagreedInCell = 0;
    for (const ImageVerdict& verdict : verdicts) {
      disagreedInCell += verdict.label == bestY && verdict.ensembleVote == bestX && verdict.disagreement > 0;
    }
    QVERIFY(disagreedInCell > 0);
    QCOMPARE(gallery->rowCount(), disagreedInCell);
    const QString caption = mistakes->caption()->text();
    QVERIFY2(caption.contains(QString("%1 of %2 images true ").arg(disagreedInCell).arg(inCell)) &&
                 caption.endsWith("where the members disagree"),
             qPrintable(caption));
    for (int row = 0; row < gallery->rowCount(); ++row) QVERIFY(verdicts[gallery->imageIndex(row)].disagreement > 0);
    screenshot(mistakes, "uncertainty-gallery-cell-disagreement.png");
    // The entropy order keeps every image: all of the cell's, said as such.
    mistakes->orderBox()->setCurrentIndex(mistakes->orderBox()->findData(int(GalleryOrder::Entropy)));
    QVERIFY(gallery->cell().has_value());
    QCOMPARE(gallery->rowCount(), inCell);
    QVERIFY2(mistakes->caption()->text().contains(QString(": %1 images true ").arg(inCell)), qPrintable(mistakes->caption()->text()));
    for (int row = 0; row < gallery->rowCount(); ++row) {
      const ImageVerdict& verdict = verdicts[gallery->imageIndex(row)];
      QCOMPARE(verdict.label, int64_t(bestY));
      QCOMPARE(int64_t(verdict.ensembleVote), int64_t(bestX));
    }
    screenshot(mistakes, "uncertainty-gallery-cell.png");
    // The clicked cell is outlined, around its centre.
    QCPItemRect* outline = nullptr;
    for (int i = 0; i < plot->itemCount(); ++i) {
      if (auto* rect = qobject_cast<QCPItemRect*>(plot->item(i))) outline = rect;
    }
    QVERIFY(outline);
    QCOMPARE((outline->topLeft->coords() + outline->bottomRight->coords()) / 2, QPointF(bestX, bestY));

    // The second selected run's matrix stands beside the first, its own counts, named; a
    // click on it turns the gallery to that run's images.
    ConfusionMatrixPlot* other = mistakes->confusion(1);
    QVERIFY(other->isVisible());
    QCOMPARE(other->inspection()->runDirectory, m_single);
    auto* otherMap = qobject_cast<QCPColorMap*>(other->plot()->plottable(0));
    QVERIFY(otherMap);
    const EvaluationResult singleEvaluation = RunAnalysis::open(m_single.toStdString())->evaluate();
    double otherDiagonal = 0;
    for (int x = 0; x < 10; ++x) otherDiagonal += otherMap->data()->cell(x, x);
    QVERIFY(std::abs(otherDiagonal / 300.0 - singleEvaluation.ensemble.accuracy) < 1e-12);
    other->plot()->replot();
    const QPoint diagonalCell(int(other->plot()->xAxis->coordToPixel(0)), int(other->plot()->yAxis->coordToPixel(0)));
    QTest::mouseClick(other->plot(), Qt::LeftButton, {}, diagonalCell);
    QCOMPARE(mistakes->galleryRun(), 1);
    QCOMPARE(gallery->inspection()->runDirectory, m_single);
    QCOMPARE(gallery->rowCount(), int(otherMap->data()->cell(0, 0)));
    screenshot(mistakes, "uncertainty-gallery.png");
    // One run selected: its matrix alone.
    m_view->setRuns({{m_ensemble, "ensemble of 3", "synthetic"}});
    QVERIFY(!other->isVisible());
    QCOMPARE(gallery->inspection()->runDirectory, m_ensemble);
    m_view->setRuns(bothRuns());
    QCOMPARE(mistakes->confusion(1)->inspection(), nullptr);  // forgotten once deselected
  }

  void contactSheetAndPlotDataExport() {
    MistakesView* mistakes = m_view->mistakes();
    mistakes->orderBox()->setCurrentIndex(mistakes->orderBox()->findData(int(GalleryOrder::Entropy)));
    mistakes->gallery()->setCell(std::nullopt);
    QCOMPARE(mistakes->gallery()->rowCount(), 300);
    QVERIFY(mistakes->contactSheetButton()->isEnabled());
    const QString sheet = m_root.filePath("sheet.png");
    QVERIFY(mistakes->saveContactSheet(sheet).isEmpty());
    const QImage image(sheet);
    QVERIFY(!image.isNull());
    QCOMPARE(image.height() / image.width(), 1);  // 100 tiles: 10 rows of 10
    QVERIFY(image.pixelColor(image.width() / 20, image.height() / 20) != QColor(Qt::white));  // a tile was drawn

    // The shift plot's data (back on rotation, computed for both runs): one row per drawn
    // point, the ECE panel named.
    m_view->shift()->kindBox()->setCurrentIndex(0);
    const QString csv = m_root.filePath("shift.csv");
    QVERIFY(exportPlot(m_view->shift()->plot(), csv).isEmpty());
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.front(), QString("panel,series,x,y,z"));
    int points = 0;
    for (int g = 0; g < m_view->shift()->plot()->graphCount(); ++g) points += m_view->shift()->plot()->graph(g)->dataCount();
    QCOMPARE(lines.size() - 1, points);
    QVERIFY(lines.filter(QRegularExpression("^ECE,single,")).size() > 0);
    const QString matrix = m_root.filePath("confusion.csv");
    QVERIFY(exportPlot(mistakes->confusion()->plot(), matrix).isEmpty());
    QFile matrixFile(matrix);
    QVERIFY(matrixFile.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(matrixFile.readAll()).count('\n'), 1 + 100);
    // The window's hint is not in an exported figure's title, and stays in the window's.
    auto* title = qobject_cast<QCPTextElement*>(mistakes->confusion()->plot()->plotLayout()->element(0, 0));
    QVERIFY(title && title->text().endsWith("(click a cell)"));
    const QString shownTitle = title->text(), figureTitle = shownTitle.chopped(QString(" (click a cell)").size());
    const QString svg = m_root.filePath("confusion.svg");
    QVERIFY(exportPlot(mistakes->confusion()->plot(), svg).isEmpty());
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    const QString drawn = QString::fromUtf8(svgFile.readAll());
    QVERIFY2(drawn.contains(figureTitle.toHtmlEscaped()) && !drawn.contains("click a cell"), qPrintable(figureTitle));
    QCOMPARE(title->text(), shownTitle);
  }

  void screenshotOfTheReliabilityPage() {
    m_view->showResult(RunAnalysis::open(m_ensemble.toStdString())->evaluate(), "ensemble of 3");
    screenshot(m_view->reliability(), "uncertainty-reliability.png");
  }

  // `ensemble-lab --figures`: the same figures saved without a click, and bad requests
  // refused with the reason and a non-zero exit.
  void figuresAreSavedHeadless() {
    const QString out = m_root.filePath("figures");
    QProcess app;
    app.setProcessChannelMode(QProcess::MergedChannels);
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", out, "--compare", m_ensemble + "," + m_single, "--shift", "rotate:0,45"});
    QVERIFY(app.waitForFinished(300000));
    const QString said = QString::fromUtf8(app.readAll());
    QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0, qPrintable(said));
    for (const QString file : {"reliability.png", "reliability.csv", "shift-rotate.png", "shift-rotate.csv",
                               "page-shift-rotate.png", "confusion-matrix.png", "confusion-matrix.csv", "gallery.png"}) {
      QVERIFY2(QFileInfo(out + "/" + file).size() > 0, qPrintable(file + " missing; it said: " + said));
    }
    // Both runs on the reliability diagram, as the window draws two selected runs.
    QFile reliability(out + "/reliability.csv");
    QVERIFY(reliability.open(QIODevice::ReadOnly));
    const QString diagram = QString::fromUtf8(reliability.readAll());
    for (const QString& run : {m_ensemble, m_single}) {
      const QString label = RunRecord::load(run).legendLabel();
      QVERIFY2(diagram.contains(label + ":"), qPrintable(label + " is not in reliability.csv:\n" + diagram));
    }
    // Both runs' confusion matrices, each row naming its run (the second had been left out).
    const QStringList matrixRows = fileLines(out + "/confusion-matrix.csv").mid(1);
    for (const QString& run : {m_ensemble, m_single}) {
      const QString label = RunRecord::load(run).legendLabel();
      QVERIFY2(matrixRows.filter(QRegularExpression("^\"?" + QRegularExpression::escape(label) + "\"?,")).size() == 10 * 10,
               qPrintable(label + ":\n" + matrixRows.mid(0, 3).join('\n')));
    }
    QCOMPARE(matrixRows.size(), 2 * 10 * 10);
    // Side by side, each at least 640 px wide, drawn at twice the pixels.
    QVERIFY2(QImage(out + "/confusion-matrix.png").width() >= 2 * 2 * 640, qPrintable(QString::number(QImage(out + "/confusion-matrix.png").width())));
    QFile csv(out + "/shift-rotate.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList rows = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 1 + 3 * 2 * 2);  // 3 series (ensemble, its mean member, single) x 2 panels x 2 levels
    const double accuracy = rows[1].section(',', -2, -2).toDouble();
    QVERIFY(rows[1].startsWith("accuracy,"));
    QVERIFY(std::abs(accuracy - RunAnalysis::open(m_ensemble.toStdString())->evaluate().ensemble.accuracy) < 1e-9);
    // The same folder again without the shift: the older set's shift files go (they had
    // stayed beside the new figures, as if of them), a file of the user's stays.
    QFile notes(out + "/notes.txt");
    QVERIFY(notes.open(QIODevice::WriteOnly) && notes.write("mine\n") == 5);
    notes.close();
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", out, "--compare", m_single});
    QVERIFY(app.waitForFinished(300000));
    const QString again = QString::fromUtf8(app.readAll());
    QVERIFY2(app.exitCode() == 0 && again.contains("removed " + out + "/shift-rotate.csv"), qPrintable(again));
    for (const QString file : {"shift-rotate.png", "shift-rotate.csv", "page-shift-rotate.png"}) {
      QVERIFY2(!QFileInfo::exists(out + "/" + file), qPrintable(file + " was left; it said: " + again));
    }
    for (const QString file : {"notes.txt", "reliability.csv", "confusion-matrix.png", "gallery.png"}) {
      QVERIFY2(QFileInfo(out + "/" + file).size() > 0, qPrintable(file + " missing; it said: " + again));
    }

    // The out-of-distribution set asked for is the one scored (uniform-noise had been scored
    // as inverted, the page's default, with exit 0).
    const auto oodCsv = [&](const QString& set) {
      const QString folder = m_root.filePath("figures-" + set);
      app.start(ENSEMBLELAB_GUI_PATH, {"--figures", folder, "--compare", m_single, "--ood", set});
      if (!app.waitForFinished(300000) || app.exitCode() != 0) return QString::fromUtf8(app.readAll());
      QFile file(folder + "/out-of-distribution.csv");
      return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString("no CSV");
    };
    const QString noise = oodCsv("uniform-noise"), inverted = oodCsv("inverted");
    QVERIFY2(noise.contains("out: uniform-noise") && !noise.contains("inverted"), qPrintable(noise));
    QVERIFY2(inverted.contains("out: inverted") && inverted != noise, qPrintable(inverted));
    // Two runs' histograms: each row names its run in the panel column (they had been alike).
    const QString bothOod = m_root.filePath("figures-ood-both");
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", bothOod, "--compare", m_ensemble + "," + m_single, "--ood", "inverted"});
    QVERIFY(app.waitForFinished(300000));
    QVERIFY2(app.exitCode() == 0, qPrintable(QString::fromUtf8(app.readAll())));
    const QStringList oodRows = fileLines(bothOod + "/out-of-distribution.csv").mid(1);
    for (const QString& run : {m_ensemble, m_single}) {
      const QString label = RunRecord::load(run).legendLabel();
      const qsizetype rows = oodRows.filter(QRegularExpression("^\"?" + QRegularExpression::escape(label) + "\"?,")).size();
      QVERIFY2(rows > 0 && rows * 2 == oodRows.size(), qPrintable(label + ":\n" + oodRows.mid(0, 3).join('\n')));
    }

    // A bad request says what is wrong, exits 1 and writes nothing (a bad --shift had been
    // found after the reliability diagram's files were written).
    const QString refused = m_root.filePath("figures-refused");
    for (const auto& [arguments, reason] : std::vector<std::pair<QStringList, QString>>{
             {{"--shift", "spin:0,10"}, "unknown shift kind"},
             {{"--shift", "rotate:0,-5"}, "0 or more"},
             {{"--shift", "rotate:0,15", "--shift", "noise:0.1,x"}, "not a number"},
             {{"--ood", "fashion-mnst"}, "neither a set in the list nor a folder"}}) {
      app.start(ENSEMBLELAB_GUI_PATH, QStringList{"--figures", refused, "--compare", m_single} + arguments);
      QVERIFY(app.waitForFinished(120000));
      const QString error = QString::fromUtf8(app.readAll());
      QCOMPARE(app.exitCode(), 1);
      QVERIFY2(error.contains(reason), qPrintable(error));
      QVERIFY2(!QFileInfo::exists(refused), qPrintable(arguments.join(' ') + " left " + refused));
    }
    // A request found bad only as it is computed (an out-of-distribution set of another image
    // size) leaves no file: not in a new folder, which is not left behind, nor in an existing
    // one, whose files stay as they were (the reliability diagram had been written first).
    const QString otherSize = m_root.filePath("ood-28x28");
    writeForeignDataset(otherSize, 20, 28);
    const QString existing = m_root.filePath("figures-existing");
    QVERIFY(QDir().mkpath(existing));
    QFile kept(existing + "/reliability.csv");
    QVERIFY(kept.open(QIODevice::WriteOnly) && kept.write("earlier\n") == 8);
    kept.close();
    for (const QString& folder : {refused, existing}) {
      app.start(ENSEMBLELAB_GUI_PATH, {"--figures", folder, "--compare", m_single, "--ood", otherSize});
      QVERIFY(app.waitForFinished(120000));
      const QString error = QString::fromUtf8(app.readAll());
      QVERIFY2(app.exitCode() == 1 && error.contains("28x28"), qPrintable(error));
    }
    QVERIFY(!QFileInfo::exists(refused));
    QCOMPARE(QDir(existing).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden), QStringList{"reliability.csv"});
    QCOMPARE(fileLines(existing + "/reliability.csv"), QStringList{"earlier"});
    // A shift kind given twice is a usage error, as eval's, and touches nothing: its second
    // figure had failed to move ("No such file or directory", exit 1), the first replacing the
    // folder's reliability diagram on the way and leaving the rest of an older comparison.
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", existing, "--compare", m_single, "--shift", "rotate:0", "--shift", "rotate:5"});
    QVERIFY(app.waitForFinished(120000));
    const QString twice = QString::fromUtf8(app.readAll());
    QVERIFY2(app.exitCode() == 2 && twice.contains("--shift rotate:0 and --shift rotate:5 are both rotate"), qPrintable(twice));
    QCOMPARE(fileLines(existing + "/reliability.csv"), QStringList{"earlier"});
    // A folder where a figure goes is found before anything moves (the move had failed at
    // the gallery, the last file, after the reliability diagram's had replaced the older ones).
    QVERIFY(QDir().mkpath(existing + "/gallery.png"));
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", existing, "--compare", m_single});
    QVERIFY(app.waitForFinished(120000));
    const QString inTheWay = QString::fromUtf8(app.readAll());
    QVERIFY2(app.exitCode() == 1 && inTheWay.contains("gallery.png: a folder of that name is in the way"), qPrintable(inTheWay));
    QCOMPARE(fileLines(existing + "/reliability.csv"), QStringList{"earlier"});
    QVERIFY(QDir(existing + "/gallery.png").removeRecursively());
    // A file named as the folder is said to be one, and left as it was ("cannot create" alone had said neither).
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", existing + "/reliability.csv", "--compare", m_single});
    QVERIFY(app.waitForFinished(120000));
    const QString aFile = QString::fromUtf8(app.readAll());
    QVERIFY2(app.exitCode() == 1 && aFile.contains("reliability.csv is a file; name a folder for the figures"), qPrintable(aFile));
    QCOMPARE(fileLines(existing + "/reliability.csv"), QStringList{"earlier"});
    // What only --figures takes is refused without it (the window had opened, ignoring it): a
    // usage error, exit 2 as the CLI's, as is an option it does not know.
    app.start(ENSEMBLELAB_GUI_PATH, {"--compare", m_single});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitCode(), 2);
    QVERIFY(QString::fromUtf8(app.readAll()).contains("--compare goes with --figures"));
    // --compare with one run twice (however spelled), three runs, or none: usage errors too,
    // before anything is drawn (three had exited 1, one run twice had drawn it against itself).
    const std::pair<QStringList, QString> badCompares[] = {
        {{"--compare", m_single + "," + m_single + "/."}, "--compare names one run twice"},
        {{"--compare", m_single + "," + m_single + "," + m_single}, "--compare takes one or two run folders, comma-separated; it names 3"},
        {{}, "--figures needs --compare RUN[,RUN]"}};
    for (const auto& [compare, expected] : badCompares) {
      app.start(ENSEMBLELAB_GUI_PATH, QStringList{"--figures", out + "-bad-compare"} + compare);
      QVERIFY(app.waitForFinished(60000));
      const QString said = QString::fromUtf8(app.readAll());
      QVERIFY2(app.exitCode() == 2 && said.contains(expected), qPrintable(said));
      QVERIFY(!QFileInfo::exists(out + "-bad-compare"));
    }
    app.start(ENSEMBLELAB_GUI_PATH, {"--rnus", m_root.path()});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitCode(), 2);
    QVERIFY(QString::fromUtf8(app.readAll()).contains("Unknown option 'rnus' (did you mean --runs?); see ensemble-lab --help"));
    // Without a display: the same usage message, and the window says it has none and what to
    // do (Qt had aborted, exit 134, advising to reinstall), before any window is made.
    QProcessEnvironment headless = QProcessEnvironment::systemEnvironment();
    for (const char* variable : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) headless.remove(variable);
    app.setProcessEnvironment(headless);
    app.start(ENSEMBLELAB_GUI_PATH, {"--compare", m_single});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitCode(), 2);
    QVERIFY(QString::fromUtf8(app.readAll()).contains("--compare goes with --figures"));
    app.start(ENSEMBLELAB_GUI_PATH, {"--runs", m_root.path()});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitStatus(), QProcess::NormalExit);
    QCOMPARE(app.exitCode(), 1);
    const QString noDisplay = QString::fromUtf8(app.readAll());
    QVERIFY2(noDisplay.contains("no display to open the window on") && noDisplay.contains("ensemble-lab-cli"),
             qPrintable(noDisplay));
    app.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    app.start(ENSEMBLELAB_GUI_PATH, {"--figures", out, "--compare", m_root.filePath("no-such-run")});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitCode(), 1);
    QVERIFY(QString::fromUtf8(app.readAll()).contains("not a readable run folder"));
  }

  // 10,000 tiles: the gallery lays them out and paints the last screenful within the
  // window's 100 ms bound (uniform item sizes: no per-row measuring), and lists exactly the
  // images whose members disagree.
  void aGalleryOfTenThousandImagesScrolls() {
    constexpr int kImages = 10000, kClasses = 10, kSide = 28;
    auto inspection = std::make_shared<Inspection>();
    inspection->dataset = "fashion-mnist";
    Predictions& predictions = inspection->predictions;
    predictions.classes = kClasses;
    predictions.members.assign(3, std::vector<float>(std::size_t(kImages * kClasses), 0.02f));
    predictions.ensemble.assign(std::size_t(kImages * kClasses), 0);
    int disagreeing = 0;
    for (int i = 0; i < kImages; ++i) {
      predictions.labels.push_back(i % kClasses);
      const bool split = i % 7 == 0;  // every 7th image: member 2 votes otherwise
      disagreeing += split;
      for (int m = 0; m < 3; ++m) {
        const int vote = (split && m == 2) ? (i + 1) % kClasses : i % kClasses;
        predictions.members[m][std::size_t(i * kClasses + vote)] = 0.82f;
        for (int k = 0; k < kClasses; ++k) {
          predictions.ensemble[std::size_t(i * kClasses + k)] += predictions.members[m][std::size_t(i * kClasses + k)] / 3;
        }
      }
    }
    inspection->verdicts = judgeImages(predictions);
    inspection->images = ImageSet{kImages, kSide, kSide, std::vector<uint8_t>(std::size_t(kImages * kSide * kSide))};
    for (std::size_t p = 0; p < inspection->images.pixels.size(); ++p) inspection->images.pixels[p] = uint8_t(p * 7);

    inspection->runDirectory = m_ensemble;  // shown only for the selected run
    m_view->setRuns({{m_ensemble, "ensemble of 3"}});
    MistakesView* mistakes = m_view->mistakes();
    m_view->pages()->setCurrentWidget(mistakes);
    mistakes->orderBox()->setCurrentIndex(mistakes->orderBox()->findData(int(GalleryOrder::Disagreement)));
    mistakes->showInspection(inspection);
    QCOMPARE(mistakes->gallery()->rowCount(), disagreeing);
    for (int row = 0; row < mistakes->gallery()->rowCount(); ++row) QCOMPARE(mistakes->gallery()->imageIndex(row) % 7, int64_t(0));
    QListView* view = mistakes->galleryView();
    testing::OwnTimeTimer timer;
    timer.start();
    mistakes->orderBox()->setCurrentIndex(mistakes->orderBox()->findData(int(GalleryOrder::Entropy)));
    QCOMPARE(mistakes->gallery()->rowCount(), kImages);
    view->doItemsLayout();  // all 10,000 tiles, now rather than at the next event
    view->scrollToBottom();
    view->viewport()->repaint();
    const qint64 elapsed = timer.elapsedMs();
    qInfo("10,000 tiles ranked, laid out, scrolled to the end and painted in %lld ms", elapsed);
    QVERIFY2(elapsed < kMaxTickGapMs, qPrintable(QString("%1 ms").arg(elapsed)));
    QVERIFY(view->indexAt(view->viewport()->rect().center()).row() > kImages - 100);
  }

  // A matrix of many classes (EMNIST's 47, 256) shows no count in its cells, which were too
  // small to hold them (47 ran them together, 256 drew a black block of digits), and names
  // every k-th class on its axes; ten classes keep a count in every cell and every name.
  void aMatrixOfManyClassesDropsTheCountsItCannotFit_data() {
    QTest::addColumn<int>("classes");
    QTest::addColumn<int>("counts");
    QTest::addColumn<int>("names");
    QTest::newRow("10 classes") << 10 << 100 << 10;
    QTest::newRow("20 classes") << 20 << 400 << 20;
    QTest::newRow("47 classes") << 47 << 0 << 16;
    QTest::newRow("256 classes") << 256 << 0 << 20;
  }
  void aMatrixOfManyClassesDropsTheCountsItCannotFit() {
    QFETCH(int, classes);
    QFETCH(int, counts);
    QFETCH(int, names);
    auto inspection = std::make_shared<Inspection>();
    inspection->dataset = "synthetic";
    inspection->predictions.classes = classes;
    for (int i = 0; i < 3 * classes; ++i) {
      ImageVerdict verdict;
      verdict.label = i % classes;
      verdict.ensembleVote = (i * 7) % classes;
      inspection->verdicts.push_back(verdict);
    }
    ConfusionMatrixPlot plot;
    plot.resize(500, 500);
    plot.showInspection(inspection);
    int texts = 0;
    for (int i = 0; i < plot.plot()->itemCount(); ++i) texts += qobject_cast<QCPItemText*>(plot.plot()->item(i)) != nullptr;
    QCOMPARE(texts, counts);
    auto ticker = plot.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().size(), names);
    auto* map = qobject_cast<QCPColorMap*>(plot.plot()->plottable(0));
    QVERIFY(map);
    QCOMPARE(map->data()->cell(7 % classes, 1), 3.0);  // the cells themselves are all there (label 1: three votes for 7)
  }

  // Counts are drawn where they fit their cells, whatever the class count: at the window's
  // 1400x900, ten classes' three-digit counts had run into each other ("364" read "864").
  void countsThatDoNotFitTheirCellsAreNotDrawn() {
    auto inspection = std::make_shared<Inspection>();
    inspection->dataset = "synthetic";
    inspection->predictions.classes = 10;
    for (int i = 0; i < 3640; ++i) {
      ImageVerdict verdict;
      verdict.label = verdict.ensembleVote = i % 10;  // 364 a cell on the diagonal
      inspection->verdicts.push_back(verdict);
    }
    ConfusionMatrixPlot plot;
    plot.resize(600, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.showInspection(inspection);
    const auto countsShown = [&plot] {
      int shown = 0, texts = 0;
      for (int i = 0; i < plot.plot()->itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(plot.plot()->item(i))) {
          ++texts;
          shown += text->visible();
        }
      }
      return texts == 100 ? shown : -1;
    };
    QCOMPARE(countsShown(), 100);
    plot.resize(160, 160);  // cells of about 10 px
    QTRY_COMPARE(countsShown(), 0);
    plot.resize(600, 600);
    QTRY_COMPARE(countsShown(), 100);
  }

  void cleanupTestCase() { m_view.reset(); }
};

QTEST_MAIN(TestUncertaintyView)
#include "TestUncertaintyView.moc"
