// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab: the desktop app. Parses its few options and opens the window.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QIcon>
#include <cstdio>
#include <cstring>
#include <memory>

#include "FigureExport.h"
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

/// --figures needs no screen: without a display it draws offscreen.
void drawOffscreenWithoutDisplay(int argc, char** argv) {
  bool figures = false;
  for (int i = 1; i < argc; ++i) figures = figures || std::strcmp(argv[i], "--figures") == 0;
  if (figures && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
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

}  // namespace

int main(int argc, char** argv) {
  QCommandLineParser parser;
  const Options options;
  if (onlyAsksForHelpOrVersion(argc, argv)) {
    QCoreApplication app(argc, argv);
    describe(app, parser, options);  // prints and exits
    return 0;
  }
  drawOffscreenWithoutDisplay(argc, argv);
  QApplication app(argc, argv);
  describe(app, parser, options);
  QGuiApplication::setApplicationDisplayName("EnsembleLab");
  QGuiApplication::setDesktopFileName("org.ensemblelab.EnsembleLab");
  QApplication::setWindowIcon(QIcon(":/icons/ensemble-lab.svg"));

  if (!parser.isSet(options.figures)) {
    // Said rather than ignored: without --figures the window would open and do none of it.
    for (const QCommandLineOption* option : {&options.compare, &options.shift, &options.ood}) {
      if (parser.isSet(*option)) {
        std::fprintf(stderr, "ensemble-lab: --%s goes with --figures DIR (the figures to save); without it the window "
                             "opens and compares the runs you select\n", qPrintable(option->names().front()));
        return 1;
      }
    }
  }
  if (parser.isSet(options.figures)) {
    return ensemble::app::exportFigures({parser.value(options.figures), parser.value(options.compare).split(',', Qt::SkipEmptyParts),
                                         parser.values(options.shift), parser.value(options.ood)});
  }
  ensemble::ui::MainWindow window(parser.value(options.runs));
  window.show();
  return app.exec();
}
