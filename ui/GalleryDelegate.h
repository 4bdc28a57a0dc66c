// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Paints one gallery tile: the test image (nearest-neighbour scaled, as pixels are), the
// true label, the ensemble's vote and each member's (a run of one model: its vote), green
// where right and red where wrong. Every tile has the same size, so the view lays out
// 10,000 of them instantly.
#include <QImage>
#include <QStyledItemDelegate>

namespace ensemble::ui {

class GalleryModel;

class GalleryDelegate final : public QStyledItemDelegate {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(GalleryDelegate)

 public:
  explicit GalleryDelegate(const GalleryModel& model, QObject* parent = nullptr);

  static QSize tileSize();
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

  /// The first `maxTiles` tiles in the gallery's order, `columns` to a row, on white.
  QImage contactSheet(int columns, int maxTiles) const;

 private:
  void paintTile(QPainter* painter, const QRect& rect, int row, bool selected) const;

  const GalleryModel& m_model;
};

}  // namespace ensemble::ui
