// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The widget tests' runs: the Experiment form set, as a person would, for a small quick
// run on the built-in synthetic set.
#include <QComboBox>
#include <QSpinBox>
#include <QString>

#include "ui/ExperimentForm.h"

namespace testing {

struct QuickRun {
  QString mode = "ensemble";  ///< "ensemble" or "single"
  int cpuReplicas = 3;
  int batchSize = 64;
  int epochs = 2;
  int trainLimit = 1024;  ///< images of the training set
  int evalEvery = 0;      ///< 0: at epoch ends only
};

inline void setUpForm(ensemble::ui::ExperimentForm* form, const QuickRun& run = {}) {
  form->datasetBox()->setCurrentIndex(form->datasetBox()->findData("synthetic"));
  form->modeBox()->setCurrentIndex(form->modeBox()->findData(run.mode));
  form->cpuReplicasBox()->setValue(run.cpuReplicas);
  form->batchSizeBox()->setValue(run.batchSize);
  form->epochsBox()->setValue(run.epochs);
  form->trainLimitBox()->setValue(run.trainLimit);
  form->evalEveryBox()->setValue(run.evalEvery);
}

}  // namespace testing
