// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A JSON file a test reads back (config.json, summary.json, sweep.json). Qt-only.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace testing {

/// The object in the file at `path`; empty when it is missing or not a JSON object.
inline QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

}  // namespace testing
