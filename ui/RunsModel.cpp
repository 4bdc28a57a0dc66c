// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunsModel.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <QBrush>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QIcon>
#include <QMap>
#include <QPainter>
#include <QPixmap>
#include <QRegularExpression>
#include <QSet>

#include "core/common/Error.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/train/Determinism.h"
#include "ui/EngineMessage.h"
#include "ui/RunDistinctions.h"
#include "ui/RunsOrder.h"
#include "ui/SeedGroups.h"

namespace ensemble::ui {
namespace {

/// A run's plot colour as the Run cell shows it: its bold line's shade in a light frame, which
/// keeps the first colour (blue) visible on a selected row's blue; the same when selected
/// (the style's selected tint had turned the red swatch blue-grey).
QIcon swatch(const QColor& color) {
  QPixmap square(14, 14);
  square.fill(QColor(250, 250, 250));
  QPainter painter(&square);
  painter.fillRect(square.rect().adjusted(2, 2, -2, -2), color.darker(115));
  painter.end();
  QIcon icon(square);
  icon.addPixmap(square, QIcon::Selected);
  return icon;
}

QString number(double value, int decimals) { return QString::number(value, 'f', decimals); }

/// The samples a run used, "60000 / 1000" (train / test): as the run counted them where it
/// did (summary.json's train_samples, the test images an evaluation scored), else its limits,
/// "all" for a whole split. A limit above a split's size is not what the run used.
QString samplesOf(const ExperimentConfig& c, const RunSummary* s) {
  const auto split = [](int64_t limit) { return limit > 0 ? QString::number(limit) : QObject::tr("all"); };
  const QString train = s && s->trainSamples > 0 ? QString::number(s->trainSamples) : split(c.trainLimit);
  const QString test = s && s->evaluation ? QString::number(s->evaluation->samples) : split(c.testLimit);
  return QObject::tr("%1 / %2").arg(train, test);
}

/// " · 3000 training images · 1000 test images" for a run on part of its dataset, each
/// split said alone ("1024 / all train / test images" read as a riddle); empty for a whole one.
QString limitsOf(const ExperimentConfig& c) {
  QString limits;
  if (c.trainLimit > 0) limits += QObject::tr(" · %1 training images").arg(c.trainLimit);
  if (c.testLimit > 0) limits += QObject::tr(" · %1 test images").arg(c.testLimit);
  return limits;
}

/// What a person calls the run's state. A run nobody is training whose summary still
/// says "running", or that has none, was killed: it is interrupted (and resumable from
/// its last checkpoint).
QString statusOf(const RunRecord& run) {
  if (run.training) return run.paused ? "paused" : "running";
  if (run.trainingElsewhere) return "running elsewhere";
  if (!run.problem.isEmpty()) return "unreadable";  // the tooltip says why
  if (!run.summary || run.summary->status == RunStatus::Running) return "interrupted";
  return QString::fromStdString(runStatusName(run.summary->status));
}

/// The engine names a new run's folder "YYYYMMDD-HHMMSSmmm-mode-model" (captures: the hour,
/// minute and second); a folder the user renamed names the run as they chose.
QRegularExpressionMatch generatedFolderName(const QString& name) {
  static const QRegularExpression generated("^\\d{8}-(\\d{2})(\\d{2})(\\d{2})\\d{3}-");
  return generated.match(name);
}

}  // namespace

QString numericsOf(const ExperimentConfig& config) {
  const QString precision = QString::fromStdString(precisionName(config.precision));
  return whyNotReproducible(config).empty() ? precision : QObject::tr("%1, not reproducible").arg(precision);
}

QString numericsTip(const ExperimentConfig& config) {
  const std::string why = whyNotReproducible(config);
  if (!why.empty()) return inLabels(why);
  return config.precision == Precision::Tf32
             ? QObject::tr("TensorFloat-32 matrix products on the GPU; the same seed gives the same numbers")
             : QObject::tr("%1 arithmetic; the same seed gives the same numbers")
                   .arg(QString::fromStdString(precisionName(config.precision)));
}

QString RunRecord::name() const { return QFileInfo(directory).fileName(); }

QString RunRecord::describe() const {
  if (!config) return name();
  const std::size_t members = summary && summary->evaluation ? summary->evaluation->members.size() : 0;
  QString what = config->mode == TrainingMode::Ensemble && members > 0
                     ? QObject::tr("ensemble of %1").arg(members)
                     : QString::fromStdString(modeName(config->mode));
  return QObject::tr("%1, %2").arg(what, QString::fromStdString(modelName(config->model)));
}

QString RunRecord::displayName() const {
  const QStringList parts = settingsNameParts();
  if (parts.isEmpty()) return name();
  QStringList named = parts + distinctions;
  const QRegularExpressionMatch folder = generatedFolderName(name());
  if (repeatsSeed) named << QObject::tr("started %1:%2:%3").arg(folder.captured(1), folder.captured(2), folder.captured(3));
  return named.join(QStringLiteral(" · "));
}

QString RunRecord::groupDescription() const {
  const QStringList parts = settingsNameParts(/*withSeed=*/false);
  return parts.isEmpty() ? describe() : (parts + distinctions).join(QStringLiteral(" · "));
}

QStringList RunRecord::settingsNameParts(bool withSeed) const {
  if (!config || !generatedFolderName(name()).hasMatch()) return {};
  const ExperimentConfig& c = *config;
  const std::size_t models = summary && summary->evaluation ? summary->evaluation->members.size() : 0;
  const int replicas = summary ? int(summary->replicas) : this->replicas;
  QStringList parts;
  switch (c.mode) {
    case TrainingMode::Ensemble: {
      const int count = models > 0 ? int(models) : replicas;
      parts << (count > 0 ? QObject::tr("ensemble ×%1").arg(count) : QObject::tr("ensemble"));
      break;
    }
    case TrainingMode::DataParallel:
      parts << (replicas > 1 ? QObject::tr("data-parallel ×%1").arg(replicas) : QObject::tr("data-parallel"));
      break;
    default: parts << QObject::tr("single");
  }
  if (c.model != ModelKind::Cnn) parts << QString::fromStdString(modelName(c.model));
  parts << QObject::tr("lr %1").arg(c.learningRate);
  if (c.trainLimit > 0) {
    // "3k imgs" for round thousands and large limits, the number itself otherwise.
    const bool thousands = c.trainLimit % 1000 == 0 || c.trainLimit >= 10000;
    parts << (thousands ? QObject::tr("%1k imgs").arg(std::lround(double(c.trainLimit) / 1000.0))
                        : QObject::tr("%1 imgs").arg(c.trainLimit));
  }
  if (withSeed && c.seed != 0) parts << QObject::tr("seed %1").arg(c.seed);
  return parts;
}

QString RunRecord::legendLabel() const { return displayName(); }

QString RunRecord::captionLine() const {
  if (!config) return name();
  // Weight decay only where a run has it: none is the references' recipe and most runs'.
  QString decay = config->weightDecay != 0 ? QObject::tr(" · weight decay %1").arg(config->weightDecay) : QString();
  // And the weights' initialisation where it is not the model's own (d2l's N(0, 0.01²)).
  if (config->initStd > 0) decay += QObject::tr(" · initial weights' std %1").arg(config->initStd);
  // The warmup and the schedule beside the rate, where there are any.
  QString lr = QString("%1").arg(config->learningRate);
  QStringList moves;
  if (config->lrWarmupSteps > 0) moves << QObject::tr("%1 warmup steps").arg(config->lrWarmupSteps);
  if (config->lrSchedule == LrSchedule::Step) moves << QObject::tr("step decay");
  else if (config->lrSchedule != LrSchedule::Constant) moves << QString::fromStdString(lrScheduleName(config->lrSchedule));
  if (!moves.isEmpty()) lr += " (" + moves.join(", ") + ")";
  return QObject::tr("%1 (%2): %3 · %4 · %5 · %6 · %7 · lr %8 · momentum %9%10 · batch %11%12")
      .arg(displayName(), name(), QString::fromStdString(config->dataset), QString::fromStdString(modelName(config->model)),
           QString::fromStdString(modeName(config->mode)), QString::fromStdString(config->devices), numericsOf(*config))
      .arg(lr)
      .arg(config->momentum)
      .arg(decay)
      .arg(config->batchSize)
      .arg(limitsOf(*config));
}

RunFileStamps RunFileStamps::of(const QString& directory) {
  // A stat each, relative to the run's folder: through QFileInfo's lastModified (a
  // local-time QDateTime), stamping 10,000 runs took 115-160 ms (bench/RunsFolderBench.cpp).
  RunFileStamps stamps;
  const int folder = ::open(QFile::encodeName(directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0) return stamps;
  const auto stampOf = [folder](const char* file, qint64* size = nullptr) {
    struct stat status {};
    if (::fstatat(folder, file, &status, 0) != 0) return qint64(-1);
    if (size) *size = qint64(status.st_size);
    return qint64(status.st_mtim.tv_sec) * 1000000000 + qint64(status.st_mtim.tv_nsec);
  };
  stamps.config = stampOf("config.json");
  stamps.summary = stampOf("summary.json");
  stamps.metrics = stampOf("metrics.csv", &stamps.metricsSize);
  ::close(folder);
  return stamps;
}

RunRecord RunRecord::load(const QString& directory) {
  RunRecord record;
  record.directory = directory;
  // Before the files are read: a write that lands while they are read shows as a change next time.
  record.stamps = RunFileStamps::of(directory);
  const RunDirectory files(directory.toStdString());
  QStringList problems;
  try {
    record.config = ExperimentConfig::fromFile(files.configPath());
  } catch (const Error& e) {
    problems << inLabels(e.what());
  }
  if (QFileInfo::exists(QString::fromStdString(files.summaryPath()))) {  // none if killed before it started
    try {
      record.summary = RunSummary::read(files.summaryPath());
    } catch (const Error& e) {
      problems << inLabels(e.what());
    }
  }
  record.problem = problems.join('\n');
  record.started = startOfRun(directory, record.stamps.config);
  record.trainingElsewhere = record.mayStillBeWritten() && RunWriterLock::heldElsewhere(directory.toStdString());
  return record;
}

bool RunRecord::ensureCurves(QString* error) {
  if (curves) return true;
  try {
    curves = std::make_shared<RunCurves>(RunCurves::fromRows(readMetricsCsv((directory + "/metrics.csv").toStdString()),
                                                             displayName(), summary ? summary->stepsPerEpoch : 0));
    return true;
  } catch (const Error& e) {
    if (error) *error = inLabels(e.what());
    return false;
  }
}

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

namespace {
/// A run's folder, or what is left of one: a run half deleted, or whose config.json was
/// lost, is still listed (as unreadable, saying why) rather than silently dropped.
bool looksLikeRun(const QString& folder) {
  for (const char* part : {"config.json", "summary.json", "metrics.csv", "checkpoints"}) {
    if (QFileInfo::exists(folder + "/" + part)) return true;
  }
  return false;
}

/// The key two spellings of one folder share ("runs/a" and "runs//a/").
QString folderKey(const QString& directory) { return QDir::cleanPath(QFileInfo(directory).absoluteFilePath()); }

/// The run folders under `root` in the list's order: newest first by name, a sweep folder's
/// jobs after it in the sweep's order. A folder whose key is in `listed` is a run already
/// (a refresh asks nothing more of it than that it is still there: at 10,000 runs, looking
/// into each folder again took 70 ms of every refresh, bench/RunsFolderBench.cpp).
QStringList runFoldersUnder(const QString& root, const QSet<QString>& listed = {}) {
  QStringList runs;
  const auto isRun = [&](const QString& folder) { return listed.contains(folderKey(folder)) || looksLikeRun(folder); };
  const QFileInfoList folders = QDir(root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
  for (const QFileInfo& folder : folders) {
    if (isRun(folder.filePath())) {
      runs << folder.filePath();
      continue;  // a run's folder is no sweep's
    }
    if (!QFileInfo::exists(folder.filePath() + "/sweep.json")) continue;
    for (const QFileInfo& job : QDir(folder.filePath()).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
      if (isRun(job.filePath())) runs << job.filePath();
    }
  }
  return runs;
}
}  // namespace

void RunsModel::scan(const QString& root) {
  beginResetModel();
  m_runs.clear();
  ListPlaces places;
  for (const QString& folder : runFoldersUnder(root)) {
    m_runs.push_back(RunRecord::load(folder));
    m_runs.back().place = places.of(folder);
  }
  updateSeedGroups();
  keepOrder(/*insideReset=*/true);
  endResetModel();
}

QStringList RunsModel::refresh(const QString& root, const RunsFolderChanges* changes) {
  QHash<QString, int> rowByKey;  // each listed run's folder key -> its row
  const auto keyRows = [&] {
    rowByKey.clear();
    for (int row = 0; row < int(m_runs.size()); ++row) rowByKey.insert(folderKey(m_runs[row].directory), row);
  };
  keyRows();
  // The runs the changes name (a run's folder, or its metrics.csv); anything else they name
  // (the runs folder, a sweep's folder) may have added or removed runs.
  bool listing = !changes;
  const auto namedRows = [&] {
    QSet<int> rows;
    for (const QString& path : changes ? changes->paths : QSet<QString>()) {
      const QString key = folderKey(path);
      if (const auto run = rowByKey.constFind(key); run != rowByKey.constEnd()) {
        rows.insert(*run);
      } else if (const auto owner = rowByKey.constFind(QFileInfo(key).path());
                 owner != rowByKey.constEnd() && QFileInfo(key).fileName() == QLatin1String("metrics.csv")) {
        rows.insert(*owner);
      } else {
        listing = true;
      }
    }
    return rows;
  };
  QSet<int> named = namedRows();
  bool rowsChanged = false;  // the seed groups follow the rows and their configs
  QStringList found;
  if (listing) {
    QSet<QString> listedKeys(rowByKey.keyBegin(), rowByKey.keyEnd());
    found = runFoldersUnder(root, listedKeys);
    QSet<QString> foundKeys;
    for (const QString& folder : found) foundKeys.insert(folderKey(folder));
    // Gone from disk: deleted or renamed by someone else. What this window trains stays.
    for (int row = int(m_runs.size()) - 1; row >= 0; --row) {
      if (m_runs[row].training || foundKeys.contains(folderKey(m_runs[row].directory))) continue;
      beginRemoveRows({}, row, row);
      m_runs.removeAt(row);
      endRemoveRows();
      rowsChanged = true;
    }
    if (rowsChanged) {
      keyRows();
      named = namedRows();
    }
  }
  // Changed on disk: read again. The curves go too; whoever shows them reloads them. Where
  // the listing was looked at, every run is stamped (that is rare: runs added or removed);
  // otherwise the runs the changes name, and on the poll those that may still be written.
  QStringList reread;
  for (int row = 0; row < int(m_runs.size()); ++row) {
    RunRecord& run = m_runs[row];
    if (run.training) continue;
    if (!listing && !named.contains(row) && !(changes->poll && run.mayStillBeWritten())) continue;
    if (RunFileStamps::of(run.directory) == run.stamps) {
      // Unchanged, but its process may have ended (killed, it wrote nothing more).
      const bool elsewhere = run.mayStillBeWritten() && RunWriterLock::heldElsewhere(run.directory.toStdString());
      if (elsewhere != run.trainingElsewhere) {
        run.trainingElsewhere = elsewhere;
        rowChanged(row);
      }
      continue;
    }
    RunRecord fresh = RunRecord::load(run.directory);
    // A run training elsewhere is read again at each of its rows: its setup, which the seed
    // groups and the distinctions between runs follow, rarely changes.
    const auto setup = [](const RunRecord& record) { return record.config ? record.config->toJson().dump() : std::string(); };
    rowsChanged = rowsChanged || setup(fresh) != setup(run);
    run.config = std::move(fresh.config);
    run.summary = std::move(fresh.summary);
    run.problem = std::move(fresh.problem);
    run.stamps = fresh.stamps;
    run.trainingElsewhere = fresh.trainingElsewhere;
    run.curves.reset();
    reread << run.directory;
    rowChanged(row);
  }
  // New: placed after the nearest folder before it in scan order that is listed already.
  int insertAt = 0;
  ListPlaces places;
  for (const QString& folder : found) {
    const QString key = folderKey(folder);
    if (const auto listed = rowByKey.constFind(key); listed != rowByKey.constEnd()) {
      insertAt = *listed + 1;
      continue;
    }
    beginInsertRows({}, insertAt, insertAt);
    m_runs.insert(insertAt, RunRecord::load(folder));
    m_runs[insertAt].place = places.of(folder);
    endInsertRows();
    for (int& row : rowByKey) row += row >= insertAt ? 1 : 0;
    rowByKey.insert(key, insertAt);
    ++insertAt;
    rowsChanged = true;
  }
  // Grouping 10,000 runs took 120 ms; a refresh that changed no row leaves the groups as they are.
  if (rowsChanged) updateSeedGroups();
  if (rowsChanged) keepOrder();
  else if (!reread.isEmpty()) keepSorted();
  return reread;
}

void RunsModel::updateSeedGroups() {
  // Letters and the run that stands for a seed follow the folders' order, not the list's
  // sort: sorting by a column must not rename groups or change which run counts.
  QVector<int> placeOf(m_runs.size());  // row -> its position in the folders' order
  {
    QVector<int> rows(m_runs.size());
    std::iota(rows.begin(), rows.end(), 0);
    std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) { return listedBefore(m_runs[a].place, m_runs[b].place); });
    for (int i = 0; i < rows.size(); ++i) placeOf[rows[i]] = i;
  }
  QMap<QString, QVector<int>> byKey;
  for (int row = 0; row < m_runs.size(); ++row) {
    if (m_runs[row].config) byKey[seedGroupKey(*m_runs[row].config)].push_back(row);
  }
  for (RunRecord& run : m_runs) {
    run.seedGroup.clear();
    run.repeatsSeed = false;
  }
  // A group is one setup run with two seeds or more; runs of one seed repeat each other
  // (the same numbers, up to a GPU's rounding) and count once.
  QVector<QVector<int>> groups;
  for (const QVector<int>& rows : byKey) {
    QSet<std::uint64_t> seeds;
    for (const int row : rows) seeds.insert(m_runs[row].config->seed);
    if (seeds.size() > 1) groups.push_back(rows);
  }
  // Letters in the order the groups first appear among the folders (newest run first).
  for (QVector<int>& rows : groups) {
    std::sort(rows.begin(), rows.end(), [&](int a, int b) { return placeOf[a] < placeOf[b]; });
  }
  std::sort(groups.begin(), groups.end(), [&](const QVector<int>& a, const QVector<int>& b) { return placeOf[a[0]] < placeOf[b[0]]; });
  // The run that stands for a seed is the one that went furthest (completed, then the most
  // steps), the newest among equals: a newer run stopped early had stood for the seed, and
  // its whole repeats were marked as the repeats.
  const auto progress = [&](int row) {
    const auto& summary = m_runs[row].summary;
    return std::make_tuple(summary && summary->status == RunStatus::Completed, summary ? summary->stepsCompleted : int64_t(0),
                           -placeOf[row]);
  };
  for (int g = 0; g < groups.size(); ++g) {
    const QString letter = g < 26 ? QString(QChar('A' + g)) : QString("G%1").arg(g + 1);
    QMap<std::uint64_t, int> standing;  // seed -> the row that stands for it
    for (const int row : groups[g]) {
      m_runs[row].seedGroup = letter;
      const std::uint64_t seed = m_runs[row].config->seed;
      if (!standing.contains(seed) || progress(row) > progress(standing[seed])) standing[seed] = row;
    }
    for (const int row : groups[g]) m_runs[row].repeatsSeed = standing[m_runs[row].config->seed] != row;
  }
  updateDistinctions();
  // A repeat's name says when it started (two runs of one seed had the same legend label).
  for (RunRecord& run : m_runs) {
    if (run.curves) run.curves->setLabel(run.displayName());
  }
  if (!m_runs.isEmpty()) emit dataChanged(index(0, 0), index(int(m_runs.size()) - 1, ColumnCount - 1));
}

void RunsModel::updateDistinctions() {
  QMap<QString, QVector<int>> bySettingsName;
  for (int row = 0; row < m_runs.size(); ++row) {
    m_runs[row].distinctions.clear();
    // Seeds aside: "lr 0.1 · seed 1" at momentum 0.5 must not read as the seed of "lr 0.1" at 0.9.
    const QStringList parts = m_runs[row].settingsNameParts(/*withSeed=*/false);
    if (!parts.isEmpty()) bySettingsName[parts.join(QStringLiteral(" · "))].push_back(row);
  }
  for (const QVector<int>& rows : bySettingsName) {
    if (rows.size() < 2) continue;
    QVector<const ExperimentConfig*> configs;
    for (const int row : rows) configs.push_back(&*m_runs[row].config);
    const QVector<QStringList> phrases = distinctionsAmong(configs);
    for (int i = 0; i < rows.size(); ++i) m_runs[rows[i]].distinctions = phrases[i];
  }
}

int RunsModel::seedCount(const QString& group) const {
  QSet<std::uint64_t> seeds;
  for (const int row : rowsOfSeedGroup(group)) seeds.insert(m_runs[row].config->seed);
  return int(seeds.size());
}

QVector<int> RunsModel::rowsOfSeedGroup(const QString& group) const {
  QVector<int> rows;
  for (int row = 0; !group.isEmpty() && row < m_runs.size(); ++row) {
    if (m_runs[row].seedGroup == group) rows.push_back(row);
  }
  return rows;
}

int RunsModel::rowOf(const QString& directory) const {
  if (directory.isEmpty()) return -1;
  // By path, or by what it resolves to (a link to the runs folder). QFileInfo alone found
  // any folder that does not exist (yet) equal to any other.
  const QString key = folderKey(directory);
  const QFileInfo info(directory);
  for (int i = 0; i < m_runs.size(); ++i) {
    if (folderKey(m_runs[i].directory) == key) return i;
  }
  for (int i = 0; info.exists() && i < m_runs.size(); ++i) {
    if (QFileInfo(m_runs[i].directory) == info) return i;
  }
  return -1;
}

void RunsModel::remove(int row) {
  beginRemoveRows({}, row, row);
  m_runs.removeAt(row);
  endRemoveRows();
  updateSeedGroups();
}

void RunsModel::setDirectory(int row, const QString& directory) {
  if (row == liveRow()) m_liveDirectory = directory;
  m_runs[row].directory = directory;
  m_runs[row].place = ListPlaces().of(directory);
  updateSeedGroups();  // a renamed run is named by its folder now: the others' distinctions may go
  keepOrder();
}

void RunsModel::rowChanged(int row) { emit dataChanged(index(row, 0), index(row, ColumnCount - 1)); }

std::shared_ptr<const RunCurves> RunsModel::liveCurves() const {
  const int row = liveRow();
  return row >= 0 ? m_runs[row].curves : nullptr;
}

void RunsModel::setPaused(bool paused) {
  const int row = liveRow();
  if (row < 0) return;
  m_runs[row].paused = paused;
  rowChanged(row);
  keepSorted();
}

void RunsModel::markResuming(int row) {
  m_runs[row].training = true;
  rowChanged(row);
  keepSorted();
}

int RunsModel::runStarted(const RunStartedEvent& event) {
  m_liveDirectory = QString::fromStdString(event.runDirectory);
  int row = rowOf(m_liveDirectory);
  if (row < 0) {
    beginInsertRows({}, 0, 0);
    m_runs.prepend(RunRecord{m_liveDirectory, {}, {}, {}, {}, false});
    m_runs.front().started = startOfRun(m_liveDirectory, -1);
    m_runs.front().place = ListPlaces().of(m_liveDirectory);
    if (!m_runs.front().started.isValid()) m_runs.front().started = QDateTime::currentDateTime();
    endInsertRows();
    row = 0;
  }
  RunRecord& run = m_runs[row];
  run.config = event.config;
  run.replicas = event.replicas;
  run.problem.clear();
  run.training = true;
  run.curves.reset();
  if (event.startStep == 0 || !run.ensureCurves()) run.curves = std::make_shared<RunCurves>(run.displayName());
  run.curves->setStepsPerEpoch(double(event.stepsPerEpoch));  // an epoch axis before the first epoch ends
  updateSeedGroups();
  rowChanged(row);
  keepOrder();
  return liveRow();
}

void RunsModel::stepsDone(const QVector<StepEvent>& steps) {
  const int row = liveRow();
  if (row < 0) return;
  RunRecord& run = m_runs[row];
  for (const StepEvent& step : steps) run.curves->addStep(step, run.isEnsemble());
}

int RunsModel::epochDone(const EpochEvent& event) {
  const int row = liveRow();
  if (row < 0) return row;
  RunRecord& run = m_runs[row];
  run.curves->addEpoch(event, run.isEnsemble());
  run.summary = event.summary;
  rowChanged(row);
  keepSorted();
  return liveRow();
}

void RunsModel::releaseCurvesExcept(const QVector<int>& shown) {
  const int live = liveRow();
  for (int row = 0; row < int(m_runs.size()); ++row) {
    RunRecord& run = m_runs[row];
    if (row != live && !run.training && !shown.contains(row)) run.curves.reset();
  }
}

void RunsModel::evaluationDone(const EvaluationEvent& event) {
  const int row = liveRow();
  if (row < 0) return;
  RunRecord& run = m_runs[row];
  run.curves->addEvaluation(event, run.isEnsemble());
}

int RunsModel::runFinished(const RunFinishedEvent& event) {
  const int row = rowOf(QString::fromStdString(event.runDirectory));
  if (row < 0) return row;
  RunRecord& run = m_runs[row];
  run.training = false;
  run.paused = false;
  if (event.summary) run.summary = event.summary;
  // A run that diverged writes the rows of its last steps as it fails, which no step event
  // carried: its curves are read again from metrics.csv (the window had shown "No logged step yet").
  if (event.status == RunStatus::Failed) run.curves.reset();
  run.stamps = RunFileStamps::of(run.directory);  // what it wrote is what the row shows
  rowChanged(row);
  keepSorted();
  return rowOf(QString::fromStdString(event.runDirectory));
}

QColor RunsModel::plotColor(int row) const { return m_plotColors.value(m_runs[row].directory); }

void RunsModel::setPlotColors(const QHash<QString, QColor>& byDirectory) {
  if (byDirectory == m_plotColors) return;
  m_plotColors = byDirectory;
  if (!m_runs.isEmpty()) emit dataChanged(index(0, Name), index(int(m_runs.size()) - 1, Name), {Qt::DecorationRole});
}

int RunsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_runs.size()); }
int RunsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const RunRecord& run = m_runs[index.row()];
  const QString status = statusOf(run);
  if (role == Qt::ForegroundRole && index.column() == Status && (status == "failed" || status == "unreadable")) {
    return QBrush(QColor(198, 40, 40));
  }
  if (role == Qt::DecorationRole && index.column() == Name) {
    const auto color = m_plotColors.constFind(run.directory);
    return color != m_plotColors.constEnd() ? QVariant(swatch(*color)) : QVariant();
  }
  if (role == Qt::ToolTipRole) {
    if (!run.problem.isEmpty()) return run.problem;
    if (index.column() == Status && run.trainingElsewhere) {
      return tr("Another process (the CLI, a sweep or another window) is training this run: its row and curves follow "
                "what it writes. Resume, Rename and Delete wait until that process ends.");
    }
    if (index.column() == Numerics && run.config) return numericsTip(*run.config);
    if (index.column() == Started && run.started.isValid()) {
      return generatedFolderName(run.name()).hasMatch()
                 ? tr("Started %1 (its folder's name says so)").arg(run.started.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")))
                 : tr("Started %1 (when its config.json was written: the folder was renamed)")
                       .arg(run.started.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    }
    if (index.column() == SeedGroup && run.repeatsSeed) {
      return tr("A newer run of group %1 has the same seed (%2): this run repeats it, and the group's mean counts "
                "that seed once (the newer run). Selected, this run is drawn as its own line.")
          .arg(run.seedGroup)
          .arg(run.config->seed);
    }
    if (run.summary && !run.summary->message.empty()) return QString::fromStdString(run.summary->message);
    return run.directory;
  }
  if (role != Qt::DisplayRole) return {};
  if (index.column() == Name) return run.name();
  if (index.column() == Status) return status;
  if (index.column() == Started) return run.started.isValid() ? run.started.toString(QStringLiteral("yyyy-MM-dd HH:mm")) : QString();
  if (!run.config) return {};
  const ExperimentConfig& c = *run.config;
  const RunSummary* s = run.summary ? &*run.summary : nullptr;
  const EvaluationResult* evaluation = s && s->evaluation ? &*s->evaluation : nullptr;
  switch (index.column()) {
    case Mode: return QString::fromStdString(modeName(c.mode));
    case Model: return QString::fromStdString(modelName(c.model));
    case Devices: return QString::fromStdString(c.devices);
    case Numerics: return numericsOf(c);
    case Lr: return c.learningRate;
    case Momentum: return c.momentum;
    case WeightDecay: return c.weightDecay;
    case Batch: return qlonglong(c.batchSize);
    case Epochs: return QString("%1/%2").arg(s ? s->epochsCompleted : 0).arg(c.epochs);
    case Samples: return samplesOf(c, s);
    case TestAccuracy: return evaluation ? number(evaluation->ensemble.accuracy, 4) : QString();
    case EnsembleNll: return evaluation ? number(evaluation->ensemble.nll, 4) : QString();
    // A run stopped before its first epoch ended has no epoch time (it showed "0.0").
    case SecondsPerEpoch: return s && s->epochsCompleted > 0 ? number(s->secondsPerEpoch, 1) : QString();
    case ImagesPerSecond: return s ? number(s->imagesPerSecond, 0) : QString();
    case SeedGroup:
      if (run.seedGroup.isEmpty()) return QString();
      if (run.repeatsSeed) return tr("%1 · seed %2 again").arg(run.seedGroup).arg(run.config->seed);
      return tr("%1 · %2 seeds").arg(run.seedGroup).arg(seedCount(run.seedGroup));
  }
  return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == EnsembleNll) {
    return tr("Negative log-likelihood on the test set: of the ensemble's averaged probabilities for an ensemble, "
              "of the model for a single or data-parallel run");
  }
  if (role == Qt::ToolTipRole && section == ImagesPerSecond) {
    return tr("Training images per second, summed over an ensemble's members (each member trains on every image): "
              "the work done, as summary.json's images_per_second. An ensemble's images of the dataset per second "
              "are this over its members");
  }
  // Times and scores sort best or newest first at the first click, names A to Z.
  if (role == Qt::InitialSortOrderRole) {
    const bool highFirst = section == Started || section == TestAccuracy || section == ImagesPerSecond || section == Epochs;
    return highFirst ? Qt::DescendingOrder : Qt::AscendingOrder;
  }
  if (role == Qt::ToolTipRole) {
    return tr("Click to sort by this column; a third click goes back to the folders' order (newest first). "
              "Right-click to choose the columns shown; drag a header sideways to move its column");
  }
  if (role != Qt::DisplayRole) return {};
  static const char* const names[] = {"Run",       "Status",   "Started",  "Mode",         "Model", "Devices",
                                      "Numerics",  "LR",       "Momentum",     "Weight decay", "Batch",
                                      "Epochs",    "Train / test imgs", "Test acc.", "Test NLL", "s/epoch",
                                      "img/s",     "Seed group"};
  static_assert(std::size(names) == ColumnCount, "a header for every column");
  return tr(names[section]);
}

QVariant RunsModel::sortValue(int row, int column) const {
  const RunRecord& run = m_runs[row];
  const auto text = [&] {
    const QString shown = data(index(row, column), Qt::DisplayRole).toString();
    return shown.isEmpty() ? QVariant() : QVariant(shown);
  };
  const auto value = [](double number) { return QVariant(number); };
  if (column == Name || column == Status || column == Mode || column == Model || column == Devices || column == Numerics) {
    return text();
  }
  if (column == Started) return run.started.isValid() ? QVariant(run.started) : QVariant();
  if (!run.config) return {};
  const ExperimentConfig& c = *run.config;
  const RunSummary* s = run.summary ? &*run.summary : nullptr;
  const EvaluationResult* evaluation = s && s->evaluation ? &*s->evaluation : nullptr;
  switch (column) {
    case Lr: return value(c.learningRate);
    case Momentum: return value(c.momentum);
    case WeightDecay: return value(c.weightDecay);
    case Batch: return value(double(c.batchSize));
    case Epochs: return value(s ? double(s->epochsCompleted) : 0.0);
    // By training images, a whole split ("all") above every limit.
    case Samples:
      if (s && s->trainSamples > 0) return value(double(s->trainSamples));
      return value(c.trainLimit > 0 ? double(c.trainLimit) : HUGE_VAL);
    case TestAccuracy: return evaluation ? value(evaluation->ensemble.accuracy) : QVariant();
    case EnsembleNll: return evaluation ? value(evaluation->ensemble.nll) : QVariant();
    case SecondsPerEpoch: return s && s->epochsCompleted > 0 ? value(s->secondsPerEpoch) : QVariant();
    case ImagesPerSecond: return s ? value(s->imagesPerSecond) : QVariant();
    case SeedGroup: return run.seedGroup.isEmpty() ? QVariant() : QVariant(QString("%1 %2").arg(run.seedGroup).arg(c.seed));
  }
  return {};
}

void RunsModel::sort(int column, Qt::SortOrder order) {
  m_sortColumn = column >= 0 && column < ColumnCount ? column : -1;
  m_sortOrder = order;
  keepOrder();
}

void RunsModel::keepSorted() {
  if (m_sortColumn >= 0) keepOrder();
}

void RunsModel::keepOrder(bool insideReset) {
  const int count = int(m_runs.size());
  // Each run's value, once (its place among the folders breaks ties, and orders the unsorted list).
  QVector<QVariant> values(count);
  for (int row = 0; m_sortColumn >= 0 && row < count; ++row) values[row] = sortValue(row, m_sortColumn);
  const bool descending = m_sortOrder == Qt::DescendingOrder;
  QVector<int> order(count);  // new row -> old row
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (m_sortColumn >= 0) {
      const int byValue = compareSortValues(values[a], values[b], descending);
      if (byValue != 0) return descending ? byValue > 0 : byValue < 0;
    }
    return listedBefore(m_runs[a].place, m_runs[b].place);
  });
  if (std::is_sorted(order.begin(), order.end())) return;
  QVector<int> newRow(count);  // old row -> new row
  for (int row = 0; row < count; ++row) newRow[order[row]] = row;
  const auto reorder = [&] {
    QVector<RunRecord> sorted;
    sorted.reserve(count);
    for (const int row : order) sorted.push_back(std::move(m_runs[row]));
    m_runs = std::move(sorted);
  };
  if (insideReset) return reorder();
  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  const QModelIndexList from = persistentIndexList();
  QModelIndexList to;
  to.reserve(from.size());
  for (const QModelIndex& index : from) to << this->index(newRow[index.row()], index.column());
  reorder();
  changePersistentIndexList(from, to);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

}  // namespace ensemble::ui
