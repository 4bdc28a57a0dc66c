// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The gallery's list: a run's test images in the chosen order (most disagreed on, most
// uncertain, or where the ensemble and most members part ways), optionally restricted to
// one confusion-matrix cell. Rows are ranks; the images themselves are painted by
// GalleryDelegate straight from the Inspection, so 10,000 rows cost one index each.
#include <QAbstractListModel>
#include <memory>
#include <optional>

#include "ui/AnalysisResults.h"

namespace ensemble::ui {

class GalleryModel final : public QAbstractListModel {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(GalleryModel)

 public:
  /// Qt::UserRole + 1: the image's index in the test set (qint64).
  static constexpr int ImageIndexRole = Qt::UserRole + 1;

  explicit GalleryModel(QObject* parent = nullptr);

  void setInspection(std::shared_ptr<const Inspection> inspection);
  void setOrder(GalleryOrder order);
  void setCell(const std::optional<ConfusionCell>& cell);

  const Inspection* inspection() const { return m_inspection.get(); }
  GalleryOrder order() const { return m_order; }
  const std::optional<ConfusionCell>& cell() const { return m_cell; }
  /// The test-set index of the image at `row`.
  int64_t imageIndex(int row) const { return m_ranked[std::size_t(row)]; }
  /// Whose vote a tile shows: "ensemble" over members, "model" for a run of one model (a
  /// single or data-parallel run, which has no members to list).
  bool ofOneModel() const {
    return m_inspection && !m_inspection->verdicts.empty() && m_inspection->verdicts.front().memberVotes.size() <= 1;
  }

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;

 private:
  void rank();

  std::shared_ptr<const Inspection> m_inspection;
  GalleryOrder m_order = GalleryOrder::Disagreement;
  std::optional<ConfusionCell> m_cell;
  std::vector<int64_t> m_ranked;
};

}  // namespace ensemble::ui
