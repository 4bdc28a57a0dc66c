// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunDistinctions.h"

#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>

#include <cstring>

namespace ensemble::ui {
namespace {

/// What a setting's 0 (or empty text) means, as the form and --help say it.
const char* zeroWord(const std::string& key) {
  static const struct {
    const char* key;
    const char* word;
  } words[] = {{"train_limit", "all"},      {"test_limit", "all"},        {"checkpoint_every", "epoch ends"},
               {"eval_every", "epoch ends"}, {"memory_budget_mb", "none"}, {"eval_batch_size", "auto"},
               {"init_from", "seeded"},      {"devices", "default"},       {"lr_warmup_steps", "none"}};
  for (const auto& w : words) {
    if (key == w.key) return w.word;
  }
  return nullptr;
}

QString valueText(const ConfigField& field, const nlohmann::json& value) {
  const char* zero = zeroWord(field.key);
  if (zero && ((value.is_number() && value.get<double>() == 0) || (value.is_string() && value.get<std::string>().empty()))) {
    return QObject::tr(zero);
  }
  if (value.is_boolean()) return value.get<bool>() ? QObject::tr("on") : QObject::tr("off");
  if (value.is_string()) {
    const QString text = QString::fromStdString(value.get<std::string>());
    // A dataset folder or weights file by its name: the full path would fill a legend.
    const bool path = std::strcmp(field.key, "dataset") == 0 || std::strcmp(field.key, "init_from") == 0;
    if (!path) return text;
    static const QRegularExpression trailingSlashes("/+$");
    QStringList names;
    for (const QString& file : text.split(',')) {
      const QString name = QFileInfo(QString(file).remove(trailingSlashes)).fileName();
      names << (name.isEmpty() ? file : name);
    }
    return names.join(',');
  }
  return QString::fromStdString(value.dump());  // numbers as config.json holds them: 0.0005, 64
}

}  // namespace

QString settingPhrase(const ConfigField& field, const nlohmann::json& value) {
  QString label = QString::fromUtf8(field.label);
  // "Batch size" -> "batch size", but "CUDA graphs" keeps its capitals.
  if (label.size() > 1 && label[1].isLower()) label[0] = label[0].toLower();
  return QStringLiteral("%1 %2").arg(label, valueText(field, value));
}

QVector<QStringList> distinctionsAmong(const QVector<const ExperimentConfig*>& configs) {
  QVector<QStringList> phrases(configs.size());
  QVector<nlohmann::json> values;
  for (const ExperimentConfig* config : configs) values.push_back(config->toJson());
  for (const ConfigField& field : configFields()) {
    if (std::strcmp(field.key, "seed") == 0) continue;  // the name says it
    bool differs = false;
    for (const nlohmann::json& v : values) differs = differs || v.at(field.key) != values.front().at(field.key);
    if (!differs) continue;
    // Said where it is not the default, as the name says the model and seed: runs that differ
    // in it differ in a phrase, and the names stay as short as they can (issue 30's legends).
    const nlohmann::json fallback = field.defaultValue();
    for (int i = 0; i < values.size(); ++i) {
      if (values[i].at(field.key) != fallback) phrases[i] << settingPhrase(field, values[i].at(field.key));
    }
  }
  return phrases;
}

}  // namespace ensemble::ui
