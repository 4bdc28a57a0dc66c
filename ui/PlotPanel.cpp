// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/PlotPanel.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/ElidedLabel.h"
#include "ui/FlowLayout.h"
#include "ui/MetricPlot.h"
#include "ui/PlotLegend.h"
#include "ui/RunCurves.h"
#include "ui/SeedGroups.h"

namespace ensemble::ui {

PlotPanel::PlotPanel(QWidget* parent) : QWidget(parent), m_legend(new PlotLegend) {
  auto* grid = m_grid = new QGridLayout;
  const Metric metrics[] = {Metric::TrainLoss, Metric::TrainAccuracy, Metric::TestLoss, Metric::TestAccuracy};
  for (int i = 0; i < 4; ++i) {
    auto* plot = new MetricPlot(metrics[i]);
    plot->setObjectName(QString("plot%1").arg(i));
    plot->setOwnLegend(false);  // the panel's legend names the lines of all four
    m_plots.push_back(plot);
    grid->addWidget(plot, i / m_columns, i % m_columns);
    connect(plot->customPlot(), &QCustomPlot::mousePress, this, [this, plot] { m_activePlot = plot; });
  }
  m_activePlot = m_plots.back();
  // The four plots draw the same lines in the same pens (the test plots mark their points
  // too): the first one's entries are the legend's.
  m_legend->setObjectName("plotLegend");
  connect(m_plots.front(), &MetricPlot::legendChanged, this,
          [this] { m_legend->setEntries(m_plots.front()->legendEntries()); });
  connect(m_legend, &PlotLegend::blockClicked, this, [this](int block) {
    QSet<int> hidden = m_legend->hiddenBlocks();
    if (!hidden.remove(block)) hidden.insert(block);
    m_legend->setHiddenBlocks(hidden);
    for (MetricPlot* plot : m_plots) plot->setHiddenBlocks(hidden);
  });
  m_smoothing = new QSlider(Qt::Horizontal);
  m_smoothing->setRange(0, 99);
  m_smoothing->setValue(60);
  m_smoothing->setMaximumWidth(220);
  m_smoothing->setMinimumWidth(80);  // a narrow window had squeezed it to a checkbox's size
  m_smoothing->setToolTip(tr("Exponential moving average of the training curves; the raw line stays faded beneath"));
  m_logScale = new QCheckBox(tr("Log-scale loss"));
  m_epochAxis = new QCheckBox(tr("Training curves by epoch"));
  m_epochAxis->setToolTip(tr("Plot the training curves against epochs instead of steps (known after the first epoch)"));
  m_groupSeeds = new QCheckBox(tr("Group seeds"));
  m_groupSeeds->setChecked(true);
  m_groupSeeds->setToolTip(tr("Selected runs that differ only in their seed show as their mean with a band"));
  m_band = new QComboBox;
  m_band->addItem(tr("± 1 std"), int(BandKind::StandardDeviation));
  m_band->addItem(tr("min–max"), int(BandKind::MinMax));
  m_band->setToolTip(tr("What a seed group's band spans"));
  // On as many lines as the panel's width needs (FlowLayout.h).
  auto* controls = new FlowLayout;
  controls->addWidget(sideBySide({new QLabel(tr("Smoothing")), m_smoothing}));
  controls->addSpacing(10);
  controls->addWidget(m_logScale);
  controls->addSpacing(10);
  controls->addWidget(m_epochAxis);
  controls->addSpacing(10);
  controls->addWidget(sideBySide({m_groupSeeds, m_band}));
  // The hint gives way first when the window is narrow (it ends in "…", whole in its tooltip).
  auto* hint = new ElidedLabel(tr("Drag to pan, wheel to zoom, double-click to follow the data"));
  hint->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  controls->addWidget(hint, 1);
  // The plots scroll where the window is too small for four at their minimum size (1024x700
  // with the Experiment panel docked): squeezed, they had been cut off below their x axes.
  auto* plots = new QWidget;
  plots->setLayout(grid);
  grid->setContentsMargins(0, 0, 0, 0);
  auto* scroll = m_scroll = new QScrollArea;
  scroll->setObjectName("plotScroll");
  scroll->viewport()->installEventFilter(this);  // its width decides the plots' columns
  scroll->setWidget(plots);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(m_legend);
  layout->addWidget(scroll, 1);
  m_smoothing->setValue(QSettings().value("plots/smoothing", m_smoothing->value()).toInt());
  connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
    for (MetricPlot* plot : m_plots) plot->setSmoothing(value / 100.0);
    QSettings().setValue("plots/smoothing", value);  // the user's choice outlives the window
  });
  connect(m_epochAxis, &QCheckBox::toggled, this, [this](bool on) {
    for (MetricPlot* plot : m_plots) plot->setEpochAxis(on);
  });
  connect(m_logScale, &QCheckBox::toggled, this, [this](bool on) {
    for (MetricPlot* plot : m_plots) plot->setLogScale(on);
  });
  connect(m_groupSeeds, &QCheckBox::toggled, this, [this](bool on) {
    m_band->setEnabled(on);
    emit groupingChanged();
  });
  connect(m_band, &QComboBox::currentIndexChanged, this, [this] {
    for (MetricPlot* plot : m_plots) plot->setBandKind(BandKind(m_band->currentData().toInt()));
  });
  for (MetricPlot* plot : m_plots) plot->setSmoothing(m_smoothing->value() / 100.0);

  m_repaint = new QTimer(this);
  m_repaint->setInterval(kRepaintIntervalMs);
  connect(m_repaint, &QTimer::timeout, this, [this] {
    if (!m_changed) return;
    m_changed = false;
    for (MetricPlot* plot : m_plots) plot->refresh();
  });
  m_repaint->start();
}

void PlotPanel::setRuns(const QVector<std::shared_ptr<const RunCurves>>& runs,
                        const QVector<std::shared_ptr<const SeedGroupCurves>>& groups, const QStringList& unreadable) {
  m_legend->setHiddenBlocks({});  // other runs: every line shown (the plots forget theirs too)
  for (MetricPlot* plot : m_plots) {
    plot->setUnreadable(unreadable);
    plot->setGroups(groups);
    plot->setRuns(runs);
  }
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_scroll->viewport() && event->type() == QEvent::Resize) {
    arrangePlots(static_cast<QResizeEvent*>(event)->size().width());
  }
  return QWidget::eventFilter(watched, event);
}

void PlotPanel::arrangePlots(int width) {
  const int twoColumns = 2 * m_plots.front()->minimumWidth() + m_grid->horizontalSpacing();
  const int columns = width >= twoColumns ? 2 : 1;
  if (columns == m_columns) return;
  m_columns = columns;
  for (MetricPlot* plot : m_plots) m_grid->removeWidget(plot);
  for (int i = 0; i < m_plots.size(); ++i) m_grid->addWidget(m_plots[i], i / columns, i % columns);
}

bool PlotPanel::groupSeeds() const { return m_groupSeeds->isChecked(); }

}  // namespace ensemble::ui
