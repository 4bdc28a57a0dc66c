// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What tells runs apart whose short names (RunRecord::displayName: mode, model, learning rate,
// train samples, seed) are the same: two ensembles at lr 0.1 that differ in momentum, batch size
// or precision were both "ensemble ×4 · lr 0.1" in every legend. The settings whose values
// differ among such runs are added to the name of each run that does not hold the default
// ("momentum 0.5", "batch size 64"), so
// runs that do not repeat one setup never share a name, and names stay short where nothing
// needs telling apart.
#include <QString>
#include <QStringList>
#include <QVector>

#include <nlohmann/json.hpp>

#include "core/config/ConfigFields.h"
#include "core/config/ExperimentConfig.h"

namespace ensemble::ui {

/// "momentum 0.5", "precision bf16", "test samples all", "dataset kmnist" (a folder by its
/// name): the setting's label, lower-cased where it is a plain word, and its value as a person
/// reads it.
QString settingPhrase(const ConfigField& field, const nlohmann::json& value);

/// For each of `configs`, the phrases of the settings (in the help's order, the seed and
/// version aside) whose values are not the same in all of them, where its value is not the
/// default; every list is empty when they hold one setup. Two configs that differ get
/// different lists.
QVector<QStringList> distinctionsAmong(const QVector<const ExperimentConfig*>& configs);

}  // namespace ensemble::ui
