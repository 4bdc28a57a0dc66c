// SPDX-License-Identifier: GPL-3.0-or-later
// The three parts that let the window be narrower than its longest text: a row of
// controls that wraps (FlowLayout), a plot title that wraps (PlotTitle), and a choice box
// narrower than its longest choice (ShrinkableComboBox). Each is shown at widths from a
// wide screen's to less than one line of its text, and must keep everything it holds
// inside it, whole, and in order.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QtTest>
#include <memory>

#include "ui/FlowLayout.h"
#include "ui/PlotTitle.h"
#include "ui/ShrinkableComboBox.h"

using namespace ensemble::ui;

namespace {

/// The least width a layout gives `widget` (a button's is its size hint; minimumSizeHint
/// says nothing there).
int leastWidth(QWidget* widget) { return QWidgetItem(widget).minimumSize().width(); }

/// A row as a page builds one: buttons, a labelled choice kept together, and a caption
/// that takes the rest of its line.
struct ControlRow {
  QWidget widget;
  FlowLayout* layout = new FlowLayout(&widget);
  QVector<QPushButton*> buttons;
  QLabel* label = new QLabel("Order:");
  QCheckBox* choice = new QCheckBox("Members disagree (most first)");
  QLabel* caption = new QLabel("A caption that takes the rest of its line");

  ControlRow() {
    layout->setContentsMargins(0, 0, 0, 0);
    for (const char* text : {"Predict the test set", "Contact sheet…", "Export…"}) {
      buttons << new QPushButton(text);
      layout->addWidget(buttons.back());
    }
    layout->addSpacing(16);
    layout->addWidget(sideBySide({label, choice}));
    layout->addWidget(caption, 1);
    caption->setMinimumWidth(40);
  }

  QVector<QWidget*> items() const {
    QVector<QWidget*> all(buttons.begin(), buttons.end());
    return all << label->parentWidget() << caption;
  }

  /// Lays the row out `width` px wide, as tall as it asks to be at that width.
  void layOut(int width) {
    widget.resize(width, layout->heightForWidth(width));
    layout->activate();
    layout->setGeometry(widget.rect());
  }
};

}  // namespace

class TestShrinkingWidgets final : public QObject {
  Q_OBJECT

 private slots:
  // Wide, the row is one line like a QHBoxLayout's, and the caption takes the spare width;
  // narrower, items move to the next lines in their order, each whole (at least its
  // minimum width), inside the row, and on no other item; the row grows taller as it wraps
  // and asks to be no wider than its widest item.
  void aRowOfControlsWrapsInsideItsWidth() {
    ControlRow row;
    const QVector<QWidget*> items = row.items();
    int widest = 0;
    int oneLine = 0;
    for (QWidget* item : items) {
      widest = std::max(widest, leastWidth(item));
      oneLine += item->sizeHint().width();
    }
    QCOMPARE(row.layout->minimumSize().width(), widest);

    row.layOut(oneLine + 200);
    for (QWidget* item : items) QCOMPARE(item->geometry().center().y(), items.front()->geometry().center().y());
    QCOMPARE(row.caption->geometry().right(), row.widget.width() - 1);  // the spare width is the caption's
    QVERIFY(row.caption->width() > row.caption->sizeHint().width());
    // The spacing asked for between the buttons and the labelled choice is there.
    QVERIFY(items[3]->x() - items[2]->geometry().right() > 16);
    const int oneLineHeight = row.widget.height();

    int previousHeight = oneLineHeight;
    for (int width = oneLine; width >= row.layout->minimumSize().width(); width -= 37) {
      row.layOut(width);
      const QString at = QString(" at %1 px").arg(width);
      QVERIFY2(row.widget.height() >= previousHeight, qPrintable("shorter when narrower" + at));
      previousHeight = row.widget.height();
      for (int i = 0; i < items.size(); ++i) {
        const QRect box = items[i]->geometry();
        QVERIFY2(box.left() >= 0 && box.right() < width && box.top() >= 0 && box.bottom() < row.widget.height(),
                 qPrintable(QString("item %1 outside the row").arg(i) + at));
        QVERIFY2(box.width() >= leastWidth(items[i]), qPrintable(QString("item %1 cut").arg(i) + at));
        if (i == 0) continue;
        const QRect before = items[i - 1]->geometry();
        // In order: to the right on the same line, or on a line below.
        QVERIFY2((box.left() > before.right() && box.top() < before.bottom()) || box.top() > before.bottom(),
                 qPrintable(QString("item %1 not after item %2").arg(i).arg(i - 1) + at));
      }
      // The label and its choice share a line wherever the group goes.
      QCOMPARE(row.label->geometry().center().y(), row.choice->geometry().center().y());
    }
    QVERIFY2(previousHeight >= 3 * oneLineHeight, qPrintable(QString::number(previousHeight)));

    // A hidden control takes no room: the line closes up behind it.
    row.layOut(oneLine + 200);
    const int secondLeft = row.buttons[1]->x();
    row.buttons[0]->hide();
    row.layOut(oneLine + 200);
    QCOMPARE(row.buttons[1]->x(), 0);
    QVERIFY(secondLeft > 0);
  }

  // A title longer than its plot is wide breaks onto lines that fit it (at once, with room
  // above the axes for all of them), and does not set the plot's least width.
  void aLongPlotTitleWrapsAndLeavesThePlotItsWidth() {
    QCustomPlot plot;
    plot.plotLayout()->insertRow(0);
    const QString text = "20261205-103914441-ensemble-cnn: entropy on its test set and out of distribution";
    auto* title = new PlotTitle(&plot, text);
    plot.plotLayout()->addElement(0, 0, title);
    const int oneLine = QFontMetrics(title->font()).horizontalAdvance(text);
    const int least = static_cast<QWidget&>(plot).minimumSizeHint().width();  // QCustomPlot's is protected
    QVERIFY2(least < oneLine / 2, qPrintable(QString("%1 px at the least for a %2 px title").arg(least).arg(oneLine)));
    for (const int width : {oneLine + 100, oneLine / 2, 200, 130}) {
      // Drawn in one layout pass, as an export at its own size draws it (the layout asks for
      // the title's height before it gives it its width): lines and height agree at once.
      QVERIFY(!plot.toPixmap(width, 300).isNull());
      const QString at = QString(" at %1 px").arg(width);
      const QStringList lines = title->linesAt(title->rect().width());
      QCOMPARE(lines.join("").remove(' '), QString(text).remove(' '));  // every character drawn
      QCOMPARE(title->text(), text);
      const QFontMetrics metrics(title->font());
      for (const QString& line : lines) {
        QVERIFY2(metrics.horizontalAdvance(line) <= title->rect().width(), qPrintable("'" + line + "' wider than the title" + at));
      }
      QVERIFY2(title->rect().height() >= lines.size() * metrics.height(),
               qPrintable(QString("%1 lines in %2 px").arg(lines.size()).arg(title->rect().height()) + at));
      QVERIFY2(plot.axisRect()->outerRect().top() >= title->outerRect().bottom(), qPrintable("the axes under the title" + at));
      if (width > oneLine) QCOMPARE(lines.size(), 1);
      else QVERIFY2(lines.size() >= 2, qPrintable(at));
    }
  }

  // A choice box narrower than its longest choice: its least width is the characters it was
  // given, not that choice's (its preferred width is still the choice's); the chosen text is drawn ending in "…" (not cut mid-letter);
  // the open list is wide enough for every choice.
  void aChoiceBoxIsNarrowerThanItsLongestChoice() {
    ShrinkableComboBox box(12);
    const QString longest = "auto (stacked on a GPU, separate on the CPU)";
    box.addItems({"separate networks", longest});
    box.setCurrentIndex(1);
    const int textWidth = box.fontMetrics().horizontalAdvance(longest);
    QVERIFY2(box.minimumSizeHint().width() < textWidth,
             qPrintable(QString("%1 px for a %2 px choice").arg(box.minimumSizeHint().width()).arg(textWidth)));
    QVERIFY2(box.sizeHint().width() > textWidth, qPrintable(QString::number(box.sizeHint().width())));  // whole where there is room
    QComboBox plain;
    plain.addItems({"separate networks", longest});
    QVERIFY(plain.minimumSizeHint().width() > textWidth);  // what it replaces
    box.resize(box.minimumSizeHint());
    box.show();
    QVERIFY(QTest::qWaitForWindowExposed(&box));
    // Drawn: the elided text's ink ends before the arrow, as QComboBox's would not.
    QImage drawn = box.grab().toImage();
    QImage expected(drawn.size(), drawn.format());
    {
      QStyleOptionComboBox option;
      option.initFrom(&box);
      const QRect room = box.style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, &box);
      const QString elided = box.fontMetrics().elidedText(longest, Qt::ElideRight, room.width() - 2);
      QVERIFY2(elided.endsWith(QChar(0x2026)), qPrintable(elided));
      box.setItemText(1, elided);
      expected = box.grab().toImage();
      box.setItemText(1, longest);
    }
    QCOMPARE(drawn, expected);
    box.showPopup();
    QVERIFY(box.view()->isVisible());
    QVERIFY2(box.view()->width() >= textWidth, qPrintable(QString("list %1 px").arg(box.view()->width())));
    box.hidePopup();
  }
};

QTEST_MAIN(TestShrinkingWidgets)
#include "TestShrinkingWidgets.moc"
