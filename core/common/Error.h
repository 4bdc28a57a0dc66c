// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Typed errors of the engine. Every message says what is wrong, where (file, field or
// device), and what the user can do about it. The CLI and the UI catch these at their
// boundary and show the message; nothing in core/ aborts the process.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ensemble {

/// Base class of every error the engine reports to a user.
///
/// The engine says what is wrong; the front end says what to type. A message names a
/// setting the user can change as `{{key}}` (its config.json key, see FieldMention.h) and
/// the front end phrases it: the CLI as its flag (`--lr`), the window as its label
/// ("Learning rate"), files as the key (phraseMessage in core/config/ConfigFields.h).
/// `field()` is the setting the error is about, for a front end that points at it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, std::string field = {})
      : std::runtime_error(message), m_field(std::move(field)) {}
  /// The config.json key of the offending setting, or empty when the error is not about one.
  const std::string& field() const { return m_field; }

 private:
  std::string m_field;
};

/// A dataset folder or file is missing, unreadable or malformed.
class DatasetError final : public Error {
 public:
  using Error::Error;
};

/// An experiment setting (from a flag, a config file or the UI) is invalid.
class ConfigError final : public Error {
 public:
  using Error::Error;
};

/// A requested device does not exist or cannot be used.
class DeviceError final : public Error {
 public:
  using Error::Error;
};

/// A checkpoint is missing, truncated or does not match the run.
class CheckpointError final : public Error {
 public:
  using Error::Error;
};

/// Reading or writing a run's files failed (disk full, permission denied, ...).
class IoError final : public Error {
 public:
  using Error::Error;
};

/// Training produced a non-finite loss; the run stops and keeps its checkpoints (its message
/// says what they hold: core/train/Divergence.h).
class DivergenceError final : public Error {
 public:
  DivergenceError(const std::string& message, int64_t lastFiniteStep, int64_t lastGoodWeights)
      : Error(message), m_lastFiniteStep(lastFiniteStep), m_lastGoodWeights(lastGoodWeights) {}
  /// The last step whose loss was finite. Scores are read some steps late (ScoreLedger), so
  /// the run may have gone on past it, on non-finite weights: those steps do not count.
  int64_t lastFiniteStep() const { return m_lastFiniteStep; }
  /// The last step whose weights are known to give finite numbers: a checkpoint written
  /// later holds the weights that diverged (or worse), one written then or before does not.
  int64_t lastGoodWeights() const { return m_lastGoodWeights; }

 private:
  int64_t m_lastFiniteStep;
  int64_t m_lastGoodWeights;
};

/// A process of a multi-process run did not arrive, disagreed, or was lost mid-run.
class DistributedError final : public Error {
 public:
  using Error::Error;
};

}  // namespace ensemble
