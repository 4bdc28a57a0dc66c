// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a test checks the way a run ended: by status name, printing what the run said, so a
// failing run explains itself. Torch-free, for the widget tests too.
#include <QString>
#include <QtTest>

#include "core/train/TrainingEvents.h"

namespace testing {

/// Why a run's status is not `expected`: both statuses by name and the run's own message.
inline QString statusMismatch(const ensemble::RunFinishedEvent& finished, ensemble::RunStatus expected) {
  return QString("the run ended %1 where %2 was expected; it said: %3")
      .arg(QString::fromStdString(ensemble::runStatusName(finished.status)),
           QString::fromStdString(ensemble::runStatusName(expected)),
           finished.message.empty() ? QString("(nothing)") : QString::fromStdString(finished.message));
}

}  // namespace testing

/// Fails the calling test unless the run that returned `finished` (a RunFinishedEvent)
/// ended with `expected`, printing what the run said; no test ignores how a run ended.
#define EXPECT_STATUS(finished, expected)                                                               \
  do {                                                                                                  \
    const ensemble::RunFinishedEvent finished_ = (finished);                                           \
    QVERIFY2(finished_.status == (expected), qPrintable(testing::statusMismatch(finished_, expected))); \
  } while (false)
#define REQUIRE_COMPLETED(finished) EXPECT_STATUS(finished, ensemble::RunStatus::Completed)
