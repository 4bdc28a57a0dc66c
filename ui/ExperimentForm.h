// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The experiment setup panel: dataset, model, mode, devices, hyperparameters. Each field
// is checked as it changes, with the engine's own validation; an invalid one is marked
// with the reason beside it and the form reports itself invalid (Start stays disabled).
#include <QHash>
#include <QWidget>

#include "core/config/ExperimentConfig.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSettings;
class QSpinBox;

namespace ensemble::ui {

class ExperimentForm final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ExperimentForm)

 public:
  explicit ExperimentForm(QWidget* parent = nullptr);

  /// The config the fields describe (meaningful when isValid()).
  ensemble::ExperimentConfig config() const;
  bool isValid() const { return m_errors.isEmpty(); }
  /// Field name -> reason, for every invalid field.
  const QHash<QString, QString>& errors() const { return m_errors; }

  void load(const QSettings& settings);
  /// Shows `config`'s value of every setting the form has (not the devices).
  void showConfig(const ensemble::ExperimentConfig& config);
  void save(QSettings& settings) const;

  /// Adds (and selects) a dataset folder in the dataset list once its four MNIST-format
  /// files are found; otherwise leaves the list as it was and returns why (empty: added).
  QString addDatasetFolder(const QString& folder);
  /// What a person's choice of `folder` does (the form's Open folder…, the window's File >
  /// Open dataset folder…): addDatasetFolder, and where it refuses a folder of CSV files or a
  /// NumPy archive, the offer to import them (ui/DatasetImportOffer.h) and the imported folder
  /// added. Returns why
  /// nothing was added, or empty (added, or an import the user declined).
  QString openDatasetFolder(const QString& folder);

  // Fields, exposed for tests and for the window's shortcuts.
  QComboBox* datasetBox() const { return m_dataset; }
  QComboBox* modelBox() const { return m_model; }
  QComboBox* modeBox() const { return m_mode; }
  QListWidget* deviceList() const { return m_devices; }
  QSpinBox* cpuReplicasBox() const { return m_cpuReplicas; }
  QLineEdit* learningRateEdit() const { return m_learningRate; }
  QLineEdit* momentumEdit() const { return m_momentum; }
  QLineEdit* weightDecayEdit() const { return m_weightDecay; }
  QComboBox* lrScheduleBox() const { return m_lrSchedule; }
  QSpinBox* lrWarmupBox() const { return m_lrWarmup; }
  QSpinBox* batchSizeBox() const { return m_batchSize; }
  QSpinBox* epochsBox() const { return m_epochs; }
  QSpinBox* seedBox() const { return m_seed; }
  QSpinBox* trainLimitBox() const { return m_trainLimit; }
  QSpinBox* evalEveryBox() const { return m_evalEvery; }
  QComboBox* memberFormBox() const { return m_memberForm; }
  QComboBox* precisionBox() const { return m_precision; }
  QCheckBox* deterministicBox() const { return m_deterministic; }

 signals:
  void validityChanged(bool valid);
  /// The folder chosen with the form's own button was not added: `message` says why.
  void folderRefused(const QString& message);

 private:
  void chooseFolder();
  void revalidate();
  /// Reads what `dataset` holds (IDX headers and labels, not images) unless it is the one
  /// read last: the batch is checked against its training samples as the user types, and
  /// the line under the dataset says what the run will train on.
  void peekDataset(const std::string& dataset);
  void mark(const QString& field, QWidget* widget, const QString& error);
  QString deviceSpec() const;

  QComboBox* m_dataset;
  QComboBox* m_model;
  QComboBox* m_mode;
  QListWidget* m_devices;
  QSpinBox* m_cpuReplicas;
  /// The CPU replicas before single mode set them to 1, given back when another mode is
  /// chosen (an ensemble of 1 had been left, with an error to fix by hand).
  int m_replicasBeforeSingle = 4;
  QString m_lastMode;
  QLineEdit* m_learningRate;
  QLineEdit* m_momentum;
  QLineEdit* m_weightDecay;
  QComboBox* m_lrSchedule;
  QSpinBox* m_lrWarmup;
  QSpinBox* m_batchSize;
  QSpinBox* m_epochs;
  QSpinBox* m_seed;
  QSpinBox* m_trainLimit;
  QSpinBox* m_evalEvery;
  QComboBox* m_memberForm;
  QComboBox* m_precision;
  QCheckBox* m_deterministic;
  /// The widget of each setting the form shows, by config.json key: config(), the
  /// defaults and the saved setup go through the records (ConfigFields.h) and these.
  QHash<QString, QWidget*> m_fieldWidgets;
  QHash<QString, QLabel*> m_errorLabels;
  QHash<QString, QString> m_errors;
  bool m_wasValid = true;
  std::string m_peekedDataset;
  int64_t m_trainSamples = -1;  ///< of m_peekedDataset; -1 when it cannot be read
  QString m_datasetError;       ///< why it cannot be
  /// Under the dataset: its splits, image size and classes, or nothing while it is refused.
  QLabel* m_datasetShape;
};

}  // namespace ensemble::ui
