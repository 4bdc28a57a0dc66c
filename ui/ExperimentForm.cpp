// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ExperimentForm.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPalette>
#include <QPushButton>
#include <QSettings>
#include <nlohmann/json.hpp>
#include <optional>
#include <QSpinBox>
#include <QVBoxLayout>
#include <functional>

#include "core/common/Error.h"
#include "core/data/ClassCoverage.h"
#include "core/data/DatasetSource.h"
#include "core/devices/DeviceInventory.h"
#include "core/devices/DeviceSpec.h"
#include "core/models/ModelRegistry.h"
#include "core/config/ConfigFields.h"
#include "core/config/RunMode.h"
#include "ui/DatasetImportOffer.h"
#include "ui/DialogFolders.h"
#include "ui/ElidedLabel.h"
#include "ui/MessageLabel.h"
#include "ui/ShrinkableComboBox.h"
#include "ui/EngineMessage.h"

namespace ensemble::ui {
namespace {

QString gib(std::uint64_t bytes) { return QString::number(double(bytes) / double(1ull << 30), 'f', 1) + " GiB"; }

/// The engine's message for a config that differs from the defaults by `change` only.
QString engineError(const std::function<void(ExperimentConfig&)>& change) {
  ExperimentConfig config;
  change(config);
  try {
    config.validate();
    return {};
  } catch (const Error& e) {
    return inLabels(e.what());
  }
}

/// A bound widget's value as config.json holds it; none for a number field whose text is
/// no number.
std::optional<nlohmann::json> widgetValue(const QWidget* widget) {
  if (const auto* edit = qobject_cast<const QLineEdit*>(widget)) {
    bool ok = false;
    const double value = edit->text().trimmed().toDouble(&ok);
    return ok ? std::optional<nlohmann::json>(value) : std::nullopt;
  }
  if (const auto* box = qobject_cast<const QSpinBox*>(widget)) return nlohmann::json(int64_t(box->value()));
  if (const auto* box = qobject_cast<const QComboBox*>(widget)) return nlohmann::json(box->currentData().toString().toStdString());
  if (const auto* box = qobject_cast<const QCheckBox*>(widget)) return nlohmann::json(box->isChecked());
  return std::nullopt;
}

/// Shows config.json's `value` in a bound widget.
void showValue(QWidget* widget, const nlohmann::json& value) {
  if (auto* edit = qobject_cast<QLineEdit*>(widget)) edit->setText(QString::number(value.get<double>()));
  if (auto* box = qobject_cast<QSpinBox*>(widget)) box->setValue(int(value.get<int64_t>()));
  if (auto* box = qobject_cast<QComboBox*>(widget)) box->setCurrentIndex(std::max(0, box->findData(QString::fromStdString(value.get<std::string>()))));
  if (auto* box = qobject_cast<QCheckBox*>(widget)) box->setChecked(value.get<bool>());
}

/// The widget setting `key`'s record calls for (ConfigFields.h): a number field, a spin box
/// from 0, a list of its choices, a check box. The Text settings (dataset, devices) have
/// the form's own widgets.
QWidget* makeFieldWidget(const char* key) {
  const ConfigField& field = *configFieldByKey(key);
  switch (field.kind) {
    case ConfigField::Kind::Number: return new QLineEdit;
    case ConfigField::Kind::Integer:
    case ConfigField::Kind::NonNegativeInteger: {
      auto* box = new QSpinBox;
      box->setRange(0, std::numeric_limits<int>::max());
      return box;
    }
    case ConfigField::Kind::Choice: {
      auto* box = new ShrinkableComboBox;
      for (const std::string& choice : field.choices) box->addItem(QString::fromStdString(choice), QString::fromStdString(choice));
      return box;
    }
    case ConfigField::Kind::Switch: return new QCheckBox;
    case ConfigField::Kind::Text: break;
  }
  return nullptr;
}

template <typename Widget>
Widget* fieldWidget(const char* key) {
  auto* widget = qobject_cast<Widget*>(makeFieldWidget(key));
  Q_ASSERT_X(widget, key, "the record's kind calls for another widget");
  return widget;
}

/// Each choice of `box` shown in words of the form (its data stays the choice's name).
void labelChoices(QComboBox* box, const QHash<QString, QString>& labels) {
  for (int i = 0; i < box->count(); ++i) box->setItemText(i, labels.value(box->itemData(i).toString(), box->itemText(i)));
}

/// A config field's label (ConfigFields.h), translatable in the "ConfigFields" context.
QString fieldLabel(const QString& key) {
  const ConfigField* field = configFieldByKey(key.toStdString());
  return field ? QCoreApplication::translate("ConfigFields", field->label) : key;
}

}  // namespace

ExperimentForm::ExperimentForm(QWidget* parent)
    : QWidget(parent),
      m_dataset(new ShrinkableComboBox),
      m_model(fieldWidget<QComboBox>("model")),
      m_mode(fieldWidget<QComboBox>("mode")),
      m_devices(new QListWidget),
      m_cpuReplicas(new QSpinBox),
      m_learningRate(fieldWidget<QLineEdit>("lr")),
      m_momentum(fieldWidget<QLineEdit>("momentum")),
      m_weightDecay(fieldWidget<QLineEdit>("weight_decay")),
      m_lrSchedule(fieldWidget<QComboBox>("lr_schedule")),
      m_lrWarmup(fieldWidget<QSpinBox>("lr_warmup_steps")),
      m_batchSize(fieldWidget<QSpinBox>("batch_size")),
      m_epochs(fieldWidget<QSpinBox>("epochs")),
      m_seed(fieldWidget<QSpinBox>("seed")),
      m_trainLimit(fieldWidget<QSpinBox>("train_limit")),
      m_evalEvery(fieldWidget<QSpinBox>("eval_every")),
      m_memberForm(fieldWidget<QComboBox>("member_form")),
      m_precision(fieldWidget<QComboBox>("precision")),
      m_deterministic(fieldWidget<QCheckBox>("deterministic")),
      m_datasetShape(new QLabel) {
  m_deterministic->setText(tr("same seed, same numbers"));
  m_dataset->addItem(tr("Fashion-MNIST"), "fashion-mnist");
  m_dataset->addItem(tr("Synthetic (small, generated)"), "synthetic");
  auto* openFolder = new QPushButton(tr("Open folder…"));
  openFolder->setToolTip(tr("A folder with the four MNIST-format files (raw or .gz), or with a train and a test CSV file of a label and its pixels a row (Kaggle's), offered an import"));
  auto* datasetRow = new QHBoxLayout;
  datasetRow->addWidget(m_dataset, 1);
  datasetRow->addWidget(openFolder);
  auto* datasetCell = new QVBoxLayout;
  datasetCell->setSpacing(1);
  datasetCell->addLayout(datasetRow);
  m_datasetShape->setObjectName("datasetShape");
  m_datasetShape->setWordWrap(true);  // whole on two lines in a narrow panel, not elided
  // No taller than its text: a wrapped label takes the spare height of a tall panel, which
  // opened 100 px of blank around this line on a 2560x1440 screen.
  m_datasetShape->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
  m_datasetShape->setStyleSheet("color: #757575; font-size: small;");
  datasetCell->addWidget(m_datasetShape);

  labelChoices(m_mode, {{"ensemble", tr("ensemble")}, {"single", tr("single")}, {"data-parallel", tr("data-parallel")}});

  for (const DeviceInfo& device : listDevices()) {
    const QString id = QString::fromStdString(device.id);
    QString text = id + " — " + QString::fromStdString(device.name);
    text += device.cores > 0 ? QString(" (%1 cores, %2)").arg(device.cores).arg(gib(device.memoryBytes))
                             : QString(" (%1)").arg(gib(device.memoryBytes));
    auto* item = new QListWidgetItem(text, m_devices);
    item->setToolTip(text);  // the row may be elided in a narrow panel
    item->setData(Qt::UserRole, id);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(id == "cpu" ? Qt::Checked : Qt::Unchecked);
  }
  // Up to four rows without scrolling; a long device name is elided rather than scrolled
  // sideways (a horizontal scroll bar took most of a one-row list's height).
  m_devices->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_devices->setTextElideMode(Qt::ElideMiddle);
  m_devices->setMaximumHeight(m_devices->sizeHintForRow(0) * std::min(4, m_devices->count()) +
                              2 * m_devices->frameWidth() + 2);
  m_cpuReplicas->setRange(1, kMaxCpuReplicas);
  m_cpuReplicas->setValue(4);  // the CPU's replicas when it is picked: the ensemble's default
  m_cpuReplicas->setToolTip(tr("Replicas on the CPU: ensemble members or data-parallel shards"));
  m_batchSize->setRange(0, 1 << 20);
  m_epochs->setRange(0, 100000);
  m_trainLimit->setSpecialValueText(tr("all"));
  m_trainLimit->setToolTip(tr("Train on the first N samples only (quick experiments)"));
  m_evalEvery->setSpecialValueText(tr("epoch ends"));
  m_evalEvery->setSuffix(tr(" steps"));
  m_evalEvery->setToolTip(tr("Also score the test set every N training steps, for test curves between "
                             "epoch ends (each evaluation takes time)"));
  labelChoices(m_lrSchedule, {{"constant", tr("constant")}, {"cosine", tr("cosine (lr to 0 over the run)")},
                              {"step", tr("step (lr / 10 at 50% and 75%)")}});
  m_lrSchedule->setToolTip(tr("Constant: every step at the learning rate. Cosine: from the learning rate at the "
                              "first step down to 0 at the last, along a half cosine (PyTorch's "
                              "CosineAnnealingLR, stepped every step). Step: the learning rate until half the run, "
                              "a tenth of it until three quarters, a hundredth after (MultiStepLR, gamma 0.1)"));
  m_lrWarmup->setSpecialValueText(tr("none"));
  m_lrWarmup->setSuffix(tr(" steps"));
  m_lrWarmup->setToolTip(tr("Linear warmup: the first N steps rise from lr / N to the learning rate, then the "
                            "schedule runs over the steps left (for large batches and high rates)"));
  labelChoices(m_memberForm,
               {{"auto", tr("auto (stacked on a GPU, separate on the CPU)")}, {"separate", tr("separate networks")}, {"stacked", tr("stacked into one network")}});
  m_memberForm->setToolTip(tr("How ensemble members that share a device train: each on its own "
                              "(side by side on the CPU cores), or as one network of stacked weights "
                              "(cnn only; for many members on one GPU). Auto stacks the members of one GPU "
                              "and keeps them separate elsewhere."));
  labelChoices(m_precision, {{"fp32", tr("fp32")}, {"tf32", tr("tf32 (NVIDIA GPUs)")}, {"bf16", tr("bf16 autocast")}});
  m_precision->setToolTip(tr("fp32: IEEE float32 on every device. tf32: GPU matrix products in TensorFloat-32. "
                             "bf16: convolutions and matrix products in bfloat16, weights in float32"));
  m_deterministic->setToolTip(tr("On GPUs, deterministic kernels: a run repeats exactly and resumes exactly. Off, "
                                 "cuDNN may pick faster kernels and the same seed gives slightly different "
                                 "numbers. CPU runs are deterministic either way."));

  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  // Each row is a config field, labelled as ConfigFields.h declares it (the CLI's flags
  // and config.json's keys come from the same table); `name` is its config.json key.
  const auto addRow = [&](QWidget* field, QLayout* layout, const QString& name) {
    auto* error = new MessageLabel;  // it quotes what was typed: a long value wraps, the panel keeps its width
    error->setStyleSheet("color: #c62828; font-size: small;");
    error->setVisible(false);
    error->setObjectName("error-" + name);
    m_errorLabels[name] = error;
    auto* cell = new QVBoxLayout;
    cell->setSpacing(1);
    if (layout) cell->addLayout(layout);
    else cell->addWidget(field);
    cell->addWidget(error);
    form->addRow(fieldLabel(name), cell);
  };
  m_fieldWidgets = {{"dataset", m_dataset},     {"model", m_model},           {"mode", m_mode},
                    {"lr", m_learningRate},     {"momentum", m_momentum},     {"weight_decay", m_weightDecay},
                    {"lr_schedule", m_lrSchedule}, {"lr_warmup_steps", m_lrWarmup},
                    {"batch_size", m_batchSize},
                    {"epochs", m_epochs},       {"seed", m_seed},             {"train_limit", m_trainLimit},
                    {"eval_every", m_evalEvery}, {"member_form", m_memberForm}, {"precision", m_precision},
                    {"deterministic", m_deterministic}};
  auto* devicesBox = new QVBoxLayout;
  devicesBox->addWidget(m_devices);
  auto* replicasRow = new QHBoxLayout;
  replicasRow->addWidget(new QLabel(tr("CPU replicas")));
  replicasRow->addWidget(m_cpuReplicas);
  devicesBox->addLayout(replicasRow);
  // A row per setting the records put in the form, in their order.
  for (const ConfigField& field : configFields()) {
    if (!field.inForm) continue;
    const QString key = QString::fromLatin1(field.key);
    if (key == "dataset") {
      addRow(nullptr, datasetCell, key);
    } else if (key == "devices") {
      addRow(nullptr, devicesBox, key);
      // Without a usable GPU the picker holds the CPU alone; one line under it, across
      // the whole form for room, says why in CUDA's words.
      if (const std::string why = whyNoCudaDevice(); !why.empty()) {
        auto* note = new ElidedLabel(tr("No GPU: %1").arg(QString::fromStdString(why)));
        note->setObjectName("noGpuNote");
        note->setStyleSheet("color: #757575; font-size: small;");
        form->addRow(note);
      }
    } else {
      addRow(m_fieldWidgets.value(key), nullptr, key);
    }
  }
  setLayout(form);
  showConfig(ExperimentConfig{});  // every default from the one place it is declared

  connect(openFolder, &QPushButton::clicked, this, &ExperimentForm::chooseFolder);
  for (QComboBox* box : {m_dataset, m_model, m_mode, m_lrSchedule, m_memberForm, m_precision}) {
    connect(box, &QComboBox::currentIndexChanged, this, &ExperimentForm::revalidate);
  }
  // Single mode trains one model: its replica count is 1 (more is an error, not a choice).
  // Leaving it gives back the count it replaced, where the user has not changed it since.
  m_lastMode = m_mode->currentData().toString();
  connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
    const QString mode = m_mode->currentData().toString();
    if (mode == "single" && m_lastMode != "single") {
      if (m_cpuReplicas->value() > 1) m_replicasBeforeSingle = m_cpuReplicas->value();
      m_cpuReplicas->setValue(1);
    } else if (m_lastMode == "single" && mode != "single" && m_cpuReplicas->value() == 1) {
      m_cpuReplicas->setValue(m_replicasBeforeSingle);
    }
    m_lastMode = mode;
  });
  connect(m_devices, &QListWidget::itemChanged, this, &ExperimentForm::revalidate);
  connect(m_deterministic, &QCheckBox::toggled, this, &ExperimentForm::revalidate);
  for (QLineEdit* edit : {m_learningRate, m_momentum, m_weightDecay}) {
    connect(edit, &QLineEdit::textChanged, this, &ExperimentForm::revalidate);
  }
  for (QSpinBox* box : {m_cpuReplicas, m_lrWarmup, m_batchSize, m_epochs, m_seed, m_trainLimit, m_evalEvery}) {
    connect(box, &QSpinBox::valueChanged, this, &ExperimentForm::revalidate);
  }
  revalidate();
}

void ExperimentForm::chooseFolder() {
  const QString folder = dialogs::existingDirectory(this, tr("Open an MNIST-format dataset folder"), dialogs::Place::Datasets);
  if (folder.isEmpty()) return;
  if (const QString error = openDatasetFolder(folder); !error.isEmpty()) emit folderRefused(error);
}

QString ExperimentForm::openDatasetFolder(const QString& folder) {
  const QString refused = addDatasetFolder(folder);
  if (refused.isEmpty()) return {};
  const ImportOffer offer = offerDatasetImport(this, folder);
  if (!offer.folder.isEmpty()) return addDatasetFolder(offer.folder);
  if (!offer.error.isEmpty()) return offer.error;
  return offer.offered ? QString() : refused;  // declined: nothing to say
}

QString ExperimentForm::addDatasetFolder(const QString& folder) {
  try {
    trainingSampleCount(folder.toStdString());
  } catch (const Error& e) {
    return inLabels(e.what());
  }
  int index = m_dataset->findData(folder);
  if (index < 0) {
    m_dataset->addItem(folder, folder);
    index = m_dataset->count() - 1;
  }
  m_dataset->setCurrentIndex(index);
  return {};
}

void ExperimentForm::peekDataset(const std::string& dataset) {
  if (dataset == m_peekedDataset) return;
  m_peekedDataset = dataset;
  m_trainSamples = -1;
  m_datasetError.clear();
  m_datasetShape->clear();
  try {
    const DatasetShape shape = datasetShape(dataset);
    m_trainSamples = shape.trainSamples;
    // The CLI's data line, before the run: what a folder holds is seen as it is picked.
    // Labels that skip a number (EMNIST's letters, 1-26) are named: "27 classes" alone had
    // read as a miscount.
    const bool gaps = int64_t(shape.labels.size()) < shape.classes;
    m_datasetShape->setText(tr("%1 training and %2 test images of %3×%4, %5 classes%6")
                                .arg(shape.trainSamples).arg(shape.testSamples)
                                .arg(shape.imageSize.height).arg(shape.imageSize.width).arg(shape.classes)
                                .arg(gaps ? tr(" (labels %1)").arg(QString::fromStdString(formatClassList(shape.labels)))
                                          : QString()));
  } catch (const Error& e) {
    m_datasetError = inLabels(e.what());
  }
  m_datasetShape->setVisible(m_datasetError.isEmpty());
}

QString ExperimentForm::deviceSpec() const {
  QStringList parts;
  for (int i = 0; i < m_devices->count(); ++i) {
    const QListWidgetItem* item = m_devices->item(i);
    if (item->checkState() != Qt::Checked) continue;
    const QString id = item->data(Qt::UserRole).toString();
    parts << (id == "cpu" ? (m_cpuReplicas->value() == 1 ? QString("cpu") : QString("cpu*%1").arg(m_cpuReplicas->value())) : id);
  }
  return parts.join(',');
}

ExperimentConfig ExperimentForm::config() const {
  ExperimentConfig config;
  for (const ConfigField& field : configFields()) {
    QWidget* widget = m_fieldWidgets.value(QString::fromLatin1(field.key));
    const std::optional<nlohmann::json> value = widget ? widgetValue(widget) : std::nullopt;
    if (!value) continue;  // not in the form, or no value typed yet: the default stays
    try {
      field.set(config, *value, "the form");
    } catch (const Error&) {
      // A number being typed: revalidate() marks it; the default stays meanwhile.
    }
  }
  config.devices = deviceSpec().toStdString();
  return config;
}

void ExperimentForm::showConfig(const ExperimentConfig& config) {
  for (const ConfigField& field : configFields()) {
    if (QWidget* widget = m_fieldWidgets.value(QString::fromLatin1(field.key))) showValue(widget, field.get(config));
  }
}


void ExperimentForm::mark(const QString& field, QWidget* widget, const QString& error) {
  if (error.isEmpty()) m_errors.remove(field);
  else m_errors[field] = error;
  QLabel* label = m_errorLabels.value(field);
  label->setText(error);
  label->setVisible(!error.isEmpty());
  if (widget) {
    if (qobject_cast<QAbstractSpinBox*>(widget)) {
      // A style sheet on a spin box draws its arrows as two flat bars: a light red field
      // (the palette, which the native style keeps) marks it instead.
      QPalette palette = QApplication::palette(widget);
      if (!error.isEmpty()) palette.setColor(QPalette::Base, QColor(0xfd, 0xe0, 0xdc));
      widget->setPalette(palette);
    } else {
      widget->setStyleSheet(error.isEmpty() ? QString() : QString("border: 1px solid #c62828;"));
    }
    widget->setToolTip(error);
  }
}

void ExperimentForm::revalidate() {
  const ExperimentConfig current = config();
  // A number field whose text is no number; otherwise the setting's own check (its record's).
  const auto numberError = [&](const char* key, QLineEdit* edit) {
    const ConfigField& field = *configFieldByKey(key);
    if (!widgetValue(edit)) {
      return tr("not a number; the default is %1").arg(QString::fromStdString(field.defaultValue().dump()));
    }
    return inLabels(field.check(current));
  };
  mark("lr", m_learningRate, numberError("lr", m_learningRate));
  mark("momentum", m_momentum, numberError("momentum", m_momentum));
  mark("weight_decay", m_weightDecay, numberError("weight_decay", m_weightDecay));
  peekDataset(current.dataset);
  mark("dataset", m_dataset, m_datasetError);
  QString batchError = inLabels(configFieldByKey("batch_size")->check(current));
  if (batchError.isEmpty() && m_trainSamples >= 0) {
    const bool limited = current.trainLimit > 0 && current.trainLimit < m_trainSamples;
    const int64_t samples = limited ? current.trainLimit : m_trainSamples;
    if (current.batchSize > samples) {
      batchError = tr("larger than the %1 training samples%2: an epoch would have no step; use %1 or fewer")
                       .arg(samples)
                       .arg(limited ? tr(" (the train limit)") : QString());
    }
  }
  mark("batch_size", m_batchSize, batchError);
  mark("epochs", m_epochs, inLabels(configFieldByKey("epochs")->check(current)));

  QString deviceError;
  if (current.devices.empty()) {
    deviceError = tr("pick at least one device");
  } else {
    try {
      const auto devices = parseDeviceSpec(current.devices, cudaDeviceCount(), whyNoCudaDevice());
      // The engine's own rule for the mode (RunMode::checkReplicas), in its words.
      RunMode::of(current.mode).checkReplicas(1, int64_t(devices.size()), current.batchSize, current.devices);
      checkNewEnsembleHasMembers(current.mode, 1, int64_t(devices.size()), formatDevices(devices));
    } catch (const Error& e) {
      deviceError = inLabels(e.what());
    }
  }
  mark("devices", m_devices, deviceError);
  mark("member_form", m_memberForm,
       engineError([&](ExperimentConfig& c) {
         c.mode = current.mode;
         c.model = current.model;
         c.memberForm = current.memberForm;
       }));
  const bool gpuPicked = namesCudaDevice(current.devices);
  mark("precision", m_precision,
       current.precision == Precision::Tf32 && !gpuPicked
           ? tr("tf32 changes how NVIDIA GPUs multiply matrices: pick a GPU, or use fp32 or bf16")
           : QString());
  if (isValid() != m_wasValid) {
    m_wasValid = isValid();
    emit validityChanged(m_wasValid);
  }
}

void ExperimentForm::load(const QSettings& settings) {
  // The setup as config.json holds it (ConfigFields.h reads it); what cannot be read is
  // left at its default.
  ExperimentConfig saved;
  try {
    saved = ExperimentConfig::fromJson(nlohmann::json::parse(settings.value("setup/config").toString().toStdString()),
                                       "the saved setup");
  } catch (const std::exception&) {
  }
  // The folders opened before, those still there, stay on offer (the one chosen last alone had come back).
  for (const QString& folder : settings.value("setup/datasetFolders").toStringList()) {
    if (m_dataset->findData(folder) < 0 && QFileInfo(folder).isDir()) m_dataset->addItem(folder, folder);
  }
  const QString dataset = QString::fromStdString(saved.dataset);
  if (m_dataset->findData(dataset) < 0) m_dataset->addItem(dataset, dataset);
  showConfig(saved);
  const QStringList checked = settings.value("setup/devices", QStringList{"cpu"}).toStringList();
  for (int i = 0; i < m_devices->count(); ++i) {
    QListWidgetItem* item = m_devices->item(i);
    item->setCheckState(checked.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
  }
  m_cpuReplicas->setValue(settings.value("setup/cpuReplicas", 4).toInt());
  revalidate();
}

void ExperimentForm::save(QSettings& settings) const {
  nlohmann::json setup = config().toJson();
  setup.erase("devices");  // the picker's own state follows
  settings.setValue("setup/config", QString::fromStdString(setup.dump()));
  QStringList checked;
  for (int i = 0; i < m_devices->count(); ++i) {
    if (m_devices->item(i)->checkState() == Qt::Checked) checked << m_devices->item(i)->data(Qt::UserRole).toString();
  }
  settings.setValue("setup/devices", checked);
  settings.setValue("setup/cpuReplicas", m_cpuReplicas->value());
  QStringList folders;  // every dataset on offer but the two built in
  for (int i = 0; i < m_dataset->count(); ++i) {
    const QString spec = m_dataset->itemData(i).toString();
    if (spec != "fashion-mnist" && spec != "synthetic") folders << spec;
  }
  settings.setValue("setup/datasetFolders", folders);
}

}  // namespace ensemble::ui
