#include "ui/RunsModel.h"

#include <QBrush>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include "core/common/Error.h"
#include "core/io/MetricsCsvReader.h"
#include "ui/EngineMessage.h"

namespace ensemble::ui {
namespace {

QJsonObject readObject(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

QString number(const QJsonValue& value, int decimals) {
  return value.isDouble() ? QString::number(value.toDouble(), 'f', decimals) : QString();
}

}  // namespace

QString RunRecord::name() const { return QFileInfo(directory).fileName(); }

RunRecord RunRecord::load(const QString& directory) {
  RunRecord record;
  record.directory = directory;
  record.config = readObject(directory + "/config.json");
  record.summary = readObject(directory + "/summary.json");
  return record;
}

bool RunRecord::ensureCurves(QString* error) {
  if (curves) return true;
  try {
    curves = std::make_shared<RunCurves>(RunCurves::fromRows(
        readMetricsCsv((directory + "/metrics.csv").toStdString()), name()));
    return true;
  } catch (const Error& e) {
    if (error) *error = inLabels(e.what());
    return false;
  }
}

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsModel::scan(const QString& root) {
  beginResetModel();
  m_runs.clear();
  const QFileInfoList folders = QDir(root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
  for (const QFileInfo& folder : folders) {
    if (QFileInfo::exists(folder.filePath() + "/config.json")) m_runs.push_back(RunRecord::load(folder.filePath()));
  }
  endResetModel();
}

int RunsModel::rowOf(const QString& directory) const {
  for (int i = 0; i < m_runs.size(); ++i) {
    if (QFileInfo(m_runs[i].directory) == QFileInfo(directory)) return i;
  }
  return -1;
}

int RunsModel::upsert(const RunRecord& record) {
  const int row = rowOf(record.directory);
  if (row >= 0) {
    const auto curves = m_runs[row].curves;
    m_runs[row] = record;
    if (!m_runs[row].curves) m_runs[row].curves = curves;
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    return row;
  }
  beginInsertRows({}, 0, 0);
  m_runs.prepend(record);
  endInsertRows();
  return 0;
}

void RunsModel::remove(int row) {
  beginRemoveRows({}, row, row);
  m_runs.removeAt(row);
  endRemoveRows();
}

void RunsModel::setDirectory(int row, const QString& directory) {
  m_runs[row].directory = directory;
  if (m_runs[row].curves) m_runs[row].curves->setLabel(m_runs[row].name());
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int RunsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_runs.size()); }
int RunsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const RunRecord& run = m_runs[index.row()];
  const QJsonObject& c = run.config;
  const QJsonObject& s = run.summary;
  // A run nobody is training that has no summary, or whose summary still says "running",
  // was killed: it is interrupted (and resumable from its last checkpoint).
  QString status = s.value("status").toString();
  if (run.training) status = "running";
  else if (status.isEmpty() || status == "running") status = "interrupted";
  if (role == Qt::ForegroundRole && index.column() == Status && status == "failed") return QBrush(QColor(198, 40, 40));
  if (role == Qt::ToolTipRole) return s.value("message").toString().isEmpty() ? run.directory : s.value("message").toString();
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Name: return run.name();
    case Status: return status;
    case Mode: return c.value("mode").toString();
    case Model: return c.value("model").toString();
    case Devices: return c.value("devices").toString();
    case Lr: return c.value("lr").toDouble();
    case Momentum: return c.value("momentum").toDouble();
    case Batch: return c.value("batch_size").toInt();
    case Epochs: return QString("%1/%2").arg(s.value("epochs_completed").toInt()).arg(c.value("epochs").toInt());
    case TestAccuracy: return number(s.value("ensemble").toObject().value("test_accuracy"), 4);
    case EnsembleNll: return number(s.value("ensemble").toObject().value("test_nll"), 4);
    case SecondsPerEpoch: return number(s.value("seconds_per_epoch"), 1);
    case ImagesPerSecond: return number(s.value("images_per_second"), 0);
  }
  return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const names[] = {"Run", "Status", "Mode", "Model", "Devices", "LR", "Momentum", "Batch",
                                      "Epochs", "Test acc.", "Ens. NLL", "s/epoch", "img/s"};
  return tr(names[section]);
}

}  // namespace ensemble::ui
