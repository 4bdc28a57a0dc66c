// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/GalleryDelegate.h"

#include <QFontMetrics>
#include <QPainter>

#include "ui/ClassNames.h"
#include "ui/GalleryModel.h"

namespace ensemble::ui {
namespace {

constexpr int kImageSide = 84;  // 3x a 28-pixel image
constexpr int kTextLines = 3;
constexpr int kLineHeight = 13;
constexpr int kMargin = 4;
const QColor kRight(0, 128, 0);
const QColor kWrong(200, 0, 0);

QImage grayscale(const ImageSet& images, int64_t index) {
  QImage image(images.image(index), int(images.width), int(images.height), int(images.width), QImage::Format_Grayscale8);
  return image.copy();  // detach from the Inspection's buffer
}

}  // namespace

GalleryDelegate::GalleryDelegate(const GalleryModel& model, QObject* parent) : QStyledItemDelegate(parent), m_model(model) {}

QSize GalleryDelegate::tileSize() { return {kImageSide + 2 * kMargin + 36, kImageSide + kTextLines * kLineHeight + 3 * kMargin}; }

QSize GalleryDelegate::sizeHint(const QStyleOptionViewItem&, const QModelIndex&) const { return tileSize(); }

void GalleryDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  paintTile(painter, option.rect, index.row(), option.state & QStyle::State_Selected);
}

void GalleryDelegate::paintTile(QPainter* painter, const QRect& rect, int row, bool selected) const {
  const Inspection* inspection = m_model.inspection();
  if (!inspection) return;
  const int64_t index = m_model.imageIndex(row);
  const ImageVerdict& verdict = inspection->verdicts[std::size_t(index)];
  painter->save();
  if (selected) painter->fillRect(rect, QColor(200, 220, 255));
  const QSize scaled = QSize(int(inspection->images.width), int(inspection->images.height)).scaled(kImageSide, kImageSide, Qt::KeepAspectRatio);
  const QRect imageRect(rect.left() + (rect.width() - scaled.width()) / 2, rect.top() + kMargin, scaled.width(), scaled.height());
  painter->setRenderHint(QPainter::SmoothPixmapTransform, false);  // pixels stay pixels
  painter->drawImage(imageRect, grayscale(inspection->images, index));
  QFont font = painter->font();
  font.setPointSizeF(7.5);
  painter->setFont(font);
  const QFontMetrics metrics(font);
  const auto name = [&](int64_t label) { return className(inspection->dataset, label); };
  QRect line(rect.left() + kMargin, rect.top() + 2 * kMargin + kImageSide, rect.width() - 2 * kMargin, kLineHeight);
  painter->setPen(Qt::black);
  painter->drawText(line, Qt::AlignHCenter, tr("#%1 true %2").arg(index).arg(name(verdict.label)));
  line.translate(0, kLineHeight);
  painter->setPen(verdict.ensembleVote == verdict.label ? kRight : kWrong);
  const bool oneModel = m_model.ofOneModel();
  painter->drawText(line, Qt::AlignHCenter, (oneModel ? tr("model %1") : tr("ensemble %1")).arg(name(verdict.ensembleVote)));
  line.translate(0, kLineHeight);
  if (oneModel) {  // its one vote is the line above
    painter->restore();
    return;
  }
  // The members' votes, three letters each, coloured one by one; what does not fit is elided.
  int width = 0;
  QVector<QPair<QString, bool>> votes;
  for (const int vote : verdict.memberVotes) {
    votes.push_back({name(vote).left(3), vote == verdict.label});
    width += metrics.horizontalAdvance(votes.back().first + ' ');
  }
  int x = line.left() + std::max(0, (line.width() - width) / 2);
  for (const auto& [text, right] : votes) {
    const int advance = metrics.horizontalAdvance(text + ' ');
    if (x + advance > line.right() + metrics.horizontalAdvance(' ')) {
      painter->setPen(Qt::gray);
      painter->drawText(QRect(x, line.top(), line.right() - x, kLineHeight), Qt::AlignLeft, "…");
      break;
    }
    painter->setPen(right ? kRight : kWrong);
    painter->drawText(QRect(x, line.top(), advance, kLineHeight), Qt::AlignLeft, text);
    x += advance;
  }
  painter->restore();
}

QImage GalleryDelegate::contactSheet(int columns, int maxTiles) const {
  const int tiles = std::min(m_model.rowCount(), maxTiles);
  const int rows = std::max(1, (tiles + columns - 1) / columns);
  const QSize tile = tileSize();
  QImage sheet(columns * tile.width(), rows * tile.height(), QImage::Format_RGB32);
  sheet.fill(Qt::white);
  QPainter painter(&sheet);
  for (int i = 0; i < tiles; ++i) {
    paintTile(&painter, QRect(QPoint((i % columns) * tile.width(), (i / columns) * tile.height()), tile), i, false);
  }
  return sheet;
}

}  // namespace ensemble::ui
