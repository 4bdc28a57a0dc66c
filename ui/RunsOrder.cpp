// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunsOrder.h"

#include <QFileInfo>

namespace ensemble::ui {

ListPlace ListPlaces::of(const QString& directory) {
  const QFileInfo run(directory);
  const QString parent = run.absolutePath();
  auto sweep = m_isSweep.constFind(parent);
  if (sweep == m_isSweep.constEnd()) sweep = m_isSweep.insert(parent, QFileInfo::exists(parent + "/sweep.json"));
  if (*sweep) return {QFileInfo(parent).fileName(), run.fileName()};
  return {run.fileName(), {}};
}

bool listedBefore(const ListPlace& a, const ListPlace& b) {
  // Folders newest first by name (bytes, as QDir's name order that scan() follows); a sweep's
  // jobs in the sweep's order.
  if (a.top != b.top) return a.top > b.top;
  return a.job < b.job;
}

QDateTime startOfRun(const QString& directory, qint64 configStampNs) {
  // "YYYYMMDD-HHMMSSmmm-", read digit by digit: through QRegularExpression and
  // QDateTime::fromString, a scan of 10,000 runs took 0.7 s longer (bench/RunsFolderBench.cpp).
  const QString name = QFileInfo(directory).fileName();
  const auto digits = [&](int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; ++i) {
      if (name[i] < u'0' || name[i] > u'9') return -1;
      value = value * 10 + (name[i].unicode() - '0');
    }
    return value;
  };
  if (name.size() > 19 && name[8] == u'-' && name[18] == u'-') {
    const QDate date(digits(0, 4), digits(4, 2), digits(6, 2));
    const QTime time(digits(9, 2), digits(11, 2), digits(13, 2), digits(15, 3));
    if (date.isValid() && time.isValid()) return QDateTime(date, time);
  }
  return configStampNs >= 0 ? QDateTime::fromMSecsSinceEpoch(configStampNs / 1000000) : QDateTime();
}

namespace {

/// -1, 0 or 1: text compared case aside, and runs of digits by their numbers ("run 9" before
/// "run 10"). Said here rather than asked of QCollator's numeric mode, which the C locale (a
/// server's, a container's) ignores.
int compareAsPeopleRead(const QString& a, const QString& b) {
  int i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      const int startA = i, startB = j;
      while (i < a.size() && a[i].isDigit()) ++i;
      while (j < b.size() && b[j].isDigit()) ++j;
      QStringView numberA = QStringView(a).mid(startA, i - startA), numberB = QStringView(b).mid(startB, j - startB);
      while (numberA.size() > 1 && numberA.front() == u'0') numberA = numberA.mid(1);
      while (numberB.size() > 1 && numberB.front() == u'0') numberB = numberB.mid(1);
      if (numberA.size() != numberB.size()) return numberA.size() < numberB.size() ? -1 : 1;
      if (const int order = numberA.compare(numberB); order != 0) return order < 0 ? -1 : 1;
      continue;
    }
    const QChar x = a[i].toCaseFolded(), y = b[j].toCaseFolded();
    if (x != y) return x < y ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;  // a prefix first
  return 0;
}

}  // namespace

int compareSortValues(const SortValue& a, const SortValue& b, bool descending) {
  if (!a.isValid() || !b.isValid()) {
    if (a.isValid() == b.isValid()) return 0;
    // Blanks last in either order: the ascending answer is the one a descending sort flips.
    const int blankLast = a.isValid() ? -1 : 1;
    return descending ? -blankLast : blankLast;
  }
  if (a.typeId() == QMetaType::QDateTime) {
    const qint64 x = a.toDateTime().toMSecsSinceEpoch(), y = b.toDateTime().toMSecsSinceEpoch();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.typeId() == QMetaType::Double) {
    const double x = a.toDouble(), y = b.toDouble();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  return compareAsPeopleRead(a.toString(), b.toString());
}

}  // namespace ensemble::ui
