// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The programs a test starts (the CLI, a rank on a host of its own): started with an
// environment of the test's choosing, waited for with a limit, killed if the test ends
// first, their stderr kept for the failure message. Qt-only.
#include <QProcess>
#include <QString>
#include <QStringList>
#include <memory>

namespace testing {

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (process->state() != QProcess::NotRunning) {
      process->kill();
      process->waitForFinished();
    }
  }

  void start(const QString& program, const QStringList& arguments,
             const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    process->setProcessEnvironment(environment);
    process->start(program, arguments);
  }
  /// Exit code, or -1 when it crashed or outlived `timeoutMs`.
  int finish(int timeoutMs = 120000) {
    if (!process->waitForFinished(timeoutMs)) return -1;
    return process->exitStatus() == QProcess::NormalExit ? process->exitCode() : -1;
  }
  QString errors() { return QString::fromUtf8(process->readAllStandardError()); }

  std::unique_ptr<QProcess> process = std::make_unique<QProcess>();  ///< held by pointer: ranks move in vectors
};

#ifdef ENSEMBLELAB_CLI_PATH
/// Runs the CLI to its end: its exit code (-1: crashed, or still running after 5 minutes),
/// and what it printed on stderr into `errors` when given.
inline int runCli(const QStringList& arguments, QString* errors = nullptr) {
  ChildProcess cli;
  cli.start(ENSEMBLELAB_CLI_PATH, arguments);
  const int code = cli.finish(300000);
  if (errors) *errors = cli.errors();
  return code;
}
#endif

}  // namespace testing
