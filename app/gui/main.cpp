// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab: the desktop app. Parses its few options and opens the window.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <cstdio>
#include <cstring>
#include <memory>

#include "FigureExport.h"
#include "core/common/Error.h"
#include "core/common/LikelyName.h"
#include "core/data/DatasetShift.h"
#include "ui/MainWindow.h"

namespace {

/// --help and --version must work without a display (help2man, packaging checks, ssh).
bool onlyAsksForHelpOrVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const char* flag : {"--help", "-h", "--help-all", "--version", "-v"}) {
      if (std::strcmp(argv[i], flag) == 0) return true;
    }
  }
  return false;
}

/// Qt's notes that drawing offscreen without a desktop session is expected to give: noise on
/// the terminal of a headless --figures (seven "propagateSizeHints" lines a run).
void quietOffscreenNotes(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (message.contains("does not support propagateSizeHints") || message.startsWith("QStandardPaths: XDG_RUNTIME_DIR not set")) {
    return;
  }
  std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

/// --figures needs no screen: without a display it draws offscreen.
void drawOffscreenWithoutDisplay(int argc, char** argv) {
  bool figures = false;
  for (int i = 1; i < argc; ++i) figures = figures || std::strcmp(argv[i], "--figures") == 0;
  if (figures && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler(quietOffscreenNotes);
  }
}

struct Options {
  QCommandLineOption runs{"runs", "Folder of runs to write and reload (default: the CLI's).", "DIR"};
  QCommandLineOption figures{"figures", "Save the Uncertainty view's figures (PNG, CSV, screenshots) into DIR and exit.", "DIR"};
  QCommandLineOption compare{"compare", "With --figures: one or two run folders, comma-separated.", "RUN[,RUN]"};
  QCommandLineOption shift{"shift", "With --figures: a dataset-shift sweep, e.g. rotate:0,15,30 (repeatable).", "KIND:LEVELS"};
  QCommandLineOption ood{"ood", "With --figures: an out-of-distribution dataset (name or folder).", "DATASET"};
};

void describe(QCoreApplication& app, QCommandLineParser& parser, const Options& options) {
  QCoreApplication::setOrganizationName("EnsembleLab");
  QCoreApplication::setApplicationName("ensemble-lab");  // also names the man page and the settings file
  QCoreApplication::setApplicationVersion(ENSEMBLELAB_VERSION);
  parser.setApplicationDescription(
      "EnsembleLab: train and compare deep ensembles.\n"
      "Opens the window; the headless tool over the same engine is ensemble-lab-cli.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addOptions({options.runs, options.figures, options.compare, options.shift, options.ood});
  parser.process(app);
}

/// What is wrong with --figures' --compare: more than two runs, or one named twice (the
/// figures would compare a run with itself), or none.
QString compareProblem(const QString& compare) {
  const QStringList runs = compare.split(',', Qt::SkipEmptyParts);
  if (runs.isEmpty()) return "--figures needs --compare RUN[,RUN]: the run (or two) whose figures to save";
  if (runs.size() > 2) {
    return QString("--compare takes one or two run folders, comma-separated; it names %1").arg(runs.size());
  }
  const auto where = [](const QString& run) {
    const QFileInfo info(run);
    return info.exists() ? info.canonicalFilePath() : QDir::cleanPath(info.absoluteFilePath());
  };
  if (runs.size() == 2 && where(runs[0]) == where(runs[1])) {
    return QString("--compare names one run twice (%1 and %2); give two different runs, or one to draw it alone")
        .arg(runs[0], runs[1]);
  }
  return {};
}

/// What is wrong with the command line before any window or display is needed, or "": an
/// option it does not know, or one that goes with --figures given without it (the window
/// would open and do none of it).
QString usageProblem(const QStringList& arguments, const Options& options) {
  QCommandLineParser parser;
  parser.addOptions({options.runs, options.figures, options.compare, options.shift, options.ood});
  if (!parser.parse(arguments)) {
    QString error = parser.errorText();
    if (error.endsWith('.')) error.chop(1);
    // An unknown option answered with the one most likely meant (--run: --runs), as the CLI's.
    if (const QStringList unknown = parser.unknownOptionNames(); unknown.size() == 1) {
      std::vector<std::string> known{"help", "version"};
      for (const QCommandLineOption* option : {&options.runs, &options.figures, &options.compare, &options.shift, &options.ood}) {
        known.push_back(option->names().front().toStdString());
      }
      error += QString::fromStdString(ensemble::didYouMean(unknown.front().toStdString(), known, "--"));
    }
    return error + "; see ensemble-lab --help";
  }
  if (parser.isSet(options.figures)) {
    if (const QString problem = compareProblem(parser.value(options.compare)); !problem.isEmpty()) return problem;
    // One --shift per kind, as the CLI's eval: two would draw one figure over the other.
    std::vector<std::string> shifts;
    for (const QString& shift : parser.values(options.shift)) shifts.push_back(shift.toStdString());
    std::string repeated;
    try {
      ensemble::shiftsOfFlags(shifts, repeated);
    } catch (const ensemble::ConfigError&) {
      return {};  // a bad level or kind: exportFigures says which, with the folder left as it was
    }
    return QString::fromStdString(repeated);
  }
  for (const QCommandLineOption* option : {&options.compare, &options.shift, &options.ood}) {
    if (parser.isSet(*option)) {
      return QString("--%1 goes with --figures DIR (the figures to save); without it the window opens and compares the "
                     "runs you select").arg(option->names().front());
    }
  }
  return {};
}

bool hasDisplay() {
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
         !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

}  // namespace

int main(int argc, char** argv) {
  QCommandLineParser parser;
  const Options options;
  if (onlyAsksForHelpOrVersion(argc, argv)) {
    QCoreApplication app(argc, argv);
    describe(app, parser, options);  // prints and exits
    return 0;
  }
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  if (const QString problem = usageProblem(arguments, options); !problem.isEmpty()) {
    std::fprintf(stderr, "ensemble-lab: %s\n", qPrintable(problem));
    return 2;  // a usage error, as the CLI's
  }
  drawOffscreenWithoutDisplay(argc, argv);
  if (!hasDisplay()) {
    // Said, with what to do: Qt's own abort (exit 134) had advised reinstalling the application.
    std::fprintf(stderr,
                 "ensemble-lab: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are empty): run it in a "
                 "desktop session or over ssh -X; ensemble-lab-cli trains and evaluates without one, and "
                 "ensemble-lab --figures DIR saves the figures without one\n");
    return 1;
  }
  QApplication app(argc, argv);
  describe(app, parser, options);
  QGuiApplication::setApplicationDisplayName("EnsembleLab");
  QGuiApplication::setDesktopFileName("org.ensemblelab.EnsembleLab");
  QApplication::setWindowIcon(QIcon(":/icons/ensemble-lab.svg"));
  if (parser.isSet(options.figures)) {
    return ensemble::app::exportFigures({parser.value(options.figures), parser.value(options.compare).split(',', Qt::SkipEmptyParts),
                                         parser.values(options.shift), parser.value(options.ood)});
  }
  ensemble::ui::MainWindow window(parser.value(options.runs));
  window.show();
  return app.exec();
}
