// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/GalleryModel.h"

#include "ui/ClassNames.h"

namespace ensemble::ui {

GalleryModel::GalleryModel(QObject* parent) : QAbstractListModel(parent) {}

void GalleryModel::setInspection(std::shared_ptr<const Inspection> inspection) {
  m_inspection = std::move(inspection);
  m_cell.reset();
  rank();
}

void GalleryModel::setOrder(GalleryOrder order) {
  m_order = order;
  rank();
}

void GalleryModel::setCell(const std::optional<ConfusionCell>& cell) {
  m_cell = cell;
  rank();
}

void GalleryModel::rank() {
  beginResetModel();
  m_ranked = m_inspection ? rankImages(m_inspection->verdicts, m_order, m_cell) : std::vector<int64_t>{};
  endResetModel();
}

int GalleryModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_ranked.size()); }

QVariant GalleryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const int64_t image = imageIndex(index.row());
  if (role == ImageIndexRole) return QVariant::fromValue<qint64>(image);
  if (role != Qt::ToolTipRole && role != Qt::DisplayRole) return {};
  const ImageVerdict& verdict = m_inspection->verdicts[std::size_t(image)];
  const auto name = [&](int64_t label) { return className(m_inspection->dataset, label); };
  if (ofOneModel()) {
    return tr("test image %1\ntrue: %2\nmodel: %3 (entropy %4)")
        .arg(image).arg(name(verdict.label), name(verdict.ensembleVote)).arg(verdict.entropy, 0, 'f', 3);
  }
  QStringList votes;
  for (const int vote : verdict.memberVotes) votes << name(vote);
  return tr("test image %1\ntrue: %2\nensemble: %3 (entropy %4)\nmembers: %5")
      .arg(image).arg(name(verdict.label), name(verdict.ensembleVote)).arg(verdict.entropy, 0, 'f', 3)
      .arg(votes.join(", "));
}

}  // namespace ensemble::ui
