// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunColumns.h"

#include <QAction>
#include <QHeaderView>
#include <QSettings>
#include <array>

#include "ui/RunsModel.h"

namespace ensemble::ui {
namespace {

using Column = RunsModel::Column;

/// Each column's name in the settings, by RunsModel::Column: stable across translations and
/// across columns added later.
constexpr std::array<const char*, RunsModel::ColumnCount> kKeys{
    "run",      "status",       "started", "mode",  "model",  "devices", "numerics",
    "lr",       "momentum",     "weight_decay", "batch", "epochs", "samples", "test_accuracy",
    "test_nll", "seconds_per_epoch", "images_per_second", "seed_group"};

/// The columns left to right as the list opens the first time: the results after the status.
constexpr std::array<Column, RunsModel::ColumnCount> kDefaultOrder{
    RunsModel::Name,    RunsModel::Status,      RunsModel::TestAccuracy,    RunsModel::EnsembleNll,
    RunsModel::Started, RunsModel::Mode,        RunsModel::Model,           RunsModel::Devices,
    RunsModel::Numerics, RunsModel::Lr,         RunsModel::Momentum,        RunsModel::WeightDecay,
    RunsModel::Batch,   RunsModel::Epochs,      RunsModel::Samples,         RunsModel::SecondsPerEpoch,
    RunsModel::ImagesPerSecond, RunsModel::SeedGroup};

int columnOfKey(const QString& key) {
  for (std::size_t column = 0; column < kKeys.size(); ++column)
    if (key == QLatin1String(kKeys[column])) return int(column);
  return -1;
}

const char* const kOrderSetting = "runs/columnOrder";
const char* const kHiddenSetting = "runs/hiddenColumns";

}  // namespace

RunColumns::RunColumns(QHeaderView* header) : QObject(header), m_header(header) {
  m_header->setSectionsMovable(true);
  m_header->setFirstSectionMovable(false);  // the run's name stays first
  arrangeByDefault();
  restoreChosen();
  connect(m_header, &QHeaderView::sectionMoved, this, [this] {
    if (!m_arranging) keepChosen();
  });
  // The header's menu: a column's name to show or hide it, in the default order.
  m_header->setContextMenuPolicy(Qt::ActionsContextMenu);
  for (const Column column : kDefaultOrder) {
    const QString name = m_header->model()->headerData(column, Qt::Horizontal).toString();
    auto* action = new QAction(name, m_header);
    action->setObjectName(QString("showColumn_%1").arg(kKeys[column]));
    action->setCheckable(true);
    action->setChecked(!m_header->isSectionHidden(column));
    action->setEnabled(column != RunsModel::Name);  // a row without its run's name says nothing
    connect(action, &QAction::toggled, this, [this, column](bool shown) {
      m_header->setSectionHidden(column, !shown);
      keepChosen();
    });
    m_header->addAction(action);
  }
  auto* separator = new QAction(m_header);
  separator->setSeparator(true);
  m_header->addAction(separator);
  auto* defaults = new QAction(tr("Show all columns, in the default order"), m_header);
  defaults->setObjectName("defaultColumnsAction");
  connect(defaults, &QAction::triggered, this, &RunColumns::restoreDefaults);
  m_header->addAction(defaults);
}

void RunColumns::arrangeByDefault() {
  m_arranging = true;
  for (int visual = 0; visual < int(kDefaultOrder.size()); ++visual)
    m_header->moveSection(m_header->visualIndex(kDefaultOrder[std::size_t(visual)]), visual);
  for (int column = 0; column < RunsModel::ColumnCount; ++column) m_header->setSectionHidden(column, false);
  m_arranging = false;
}

void RunColumns::restoreChosen() {
  const QSettings settings;
  // The kept order first, left to right; a column it does not name (added since) stays where
  // the default put it among the others.
  m_arranging = true;
  int visual = 0;
  for (const QString& key : settings.value(kOrderSetting).toStringList()) {
    const int column = columnOfKey(key);
    if (column < 0) continue;  // a column since removed
    m_header->moveSection(m_header->visualIndex(column), visual++);
  }
  for (const QString& key : settings.value(kHiddenSetting).toStringList()) {
    const int column = columnOfKey(key);
    if (column > 0) m_header->setSectionHidden(column, true);  // not the run's name (column 0)
  }
  m_arranging = false;
}

void RunColumns::keepChosen() const {
  QStringList order;
  QStringList hidden;
  for (int visual = 0; visual < m_header->count(); ++visual) {
    const int column = m_header->logicalIndex(visual);
    order << kKeys[std::size_t(column)];
    if (m_header->isSectionHidden(column)) hidden << kKeys[std::size_t(column)];
  }
  QSettings settings;
  settings.setValue(kOrderSetting, order);
  settings.setValue(kHiddenSetting, hidden);
}

void RunColumns::restoreDefaults() {
  arrangeByDefault();
  for (QAction* action : m_header->actions()) {
    if (!action->isCheckable()) continue;
    const QSignalBlocker quiet(action);  // each shown already: not kept one by one
    action->setChecked(true);
  }
  QSettings settings;
  settings.remove(kOrderSetting);
  settings.remove(kHiddenSetting);
}

}  // namespace ensemble::ui
