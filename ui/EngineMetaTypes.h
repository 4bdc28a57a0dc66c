// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The engine's event structs as Qt metatypes, so they can cross threads in queued signals.
// This is the one place where engine events enter Qt (ARCHITECTURE.md).
#include <QMetaType>
#include <QVector>

#include "core/config/ExperimentConfig.h"
#include "core/train/TrainingEvents.h"

Q_DECLARE_METATYPE(ensemble::RunStartedEvent)
Q_DECLARE_METATYPE(ensemble::StepEvent)
Q_DECLARE_METATYPE(ensemble::EpochEvent)
Q_DECLARE_METATYPE(ensemble::EvaluationEvent)
Q_DECLARE_METATYPE(ensemble::RunFinishedEvent)
Q_DECLARE_METATYPE(ensemble::ExperimentConfig)
Q_DECLARE_METATYPE(ensemble::EvaluationResult)

namespace ensemble::ui {

/// Registers the types above with Qt's meta-type system (idempotent).
void registerEngineMetaTypes();

}  // namespace ensemble::ui
