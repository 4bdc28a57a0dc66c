// SPDX-License-Identifier: GPL-3.0-or-later
// The setup panel marks invalid fields with the engine's reason and reports validity
// (which is what enables Start); the setup survives a restart through QSettings.
#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QListWidget>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QAction>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/config/ConfigFields.h"
#include "core/data/DatasetSource.h"
#include "core/devices/DeviceInventory.h"
#include "tests/IdxSplitFiles.h"
#include "tests/NpzWriter.h"
#include "tests/SettingSamples.h"
#include "ui/DialogFolders.h"
#include "ui/ExperimentDock.h"
#include "ui/ExperimentForm.h"

using ensemble::ConfigField;
using ensemble::ExperimentConfig;
using ensemble::configFieldByKey;
using ensemble::configFields;
using ensemble::ui::ExperimentForm;
namespace testing = ensemble::testing;

namespace {

/// An MNIST-format folder of `samples` 28x28 images in each split (raw IDX files).
void writeIdxFolder(const QString& folder, int samples) {
  for (const QString& split : {QString("train"), QString("t10k")}) idx_files::writeIdxSplit(folder, split, {samples});
}

/// Answers each message box as it opens by pressing the button `press` names, and keeps the
/// questions' texts in `asked`. A box without that button is cancelled (so the test goes on to
/// fail on what it checks, rather than wait on the box) and its text kept in `unanswered`.
struct MessageBoxAnswers {
  QStringList asked;
  QString press;
  QString unanswered;
  QTimer timer;

  explicit MessageBoxAnswers(QObject* context) {
    QObject::connect(&timer, &QTimer::timeout, context, [this] {
      auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
      if (!box) return;
      asked << box->text();
      for (QAbstractButton* button : box->buttons()) {
        if (button->text().remove('&') == press) return button->click();
      }
      unanswered = "no button " + press + " in: " + box->text();
      box->button(QMessageBox::Cancel)->click();
    });
    timer.start(20);
  }
};

}  // namespace

class TestExperimentForm final : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void defaultsAreValid() {
    ExperimentForm form;
    QVERIFY2(form.isValid(), qPrintable(QStringList(form.errors().values()).join("; ")));
    const auto config = form.config();
    QCOMPARE(QString::fromStdString(config.devices), QString("cpu*4"));
    QCOMPARE(config.learningRate, 0.1);
    QCOMPARE(config.batchSize, int64_t(128));
    QCOMPARE(config.evalEvery, int64_t(0));  // test scores at epoch ends only, as the CLI
    QCOMPARE(form.evalEveryBox()->text(), QString("epoch ends"));
  }

  void withoutAGpuThePickerShowsTheCpuAndSaysWhy() {
    ExperimentForm form;
    QStringList ids;
    for (int i = 0; i < form.deviceList()->count(); ++i) ids << form.deviceList()->item(i)->data(Qt::UserRole).toString();
    auto* note = form.findChild<QLabel*>("noGpuNote");
    if (ensemble::cudaDeviceCount() > 0) {
      QVERIFY2(!note, "a machine with a GPU needs no note");
      QSKIP("this machine has a GPU");
    }
    QCOMPARE(ids, QStringList{"cpu"});
    QVERIFY(note && !note->isHidden());
    const QString why = QString::fromStdString(ensemble::whyNoCudaDevice());
#ifdef ENSEMBLELAB_WITH_CUDA
    QVERIFY2(why.startsWith("CUDA says: "), qPrintable(why));  // the runtime's own words
#endif
    // One line at the panel's width, the whole reason in its tooltip.
    form.resize(300, 700);
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    QCOMPARE(note->toolTip(), "No GPU: " + why);
    QVERIFY2(note->height() < 2 * note->fontMetrics().height(), qPrintable(QString::number(note->height())));
    QVERIFY2(note->fontMetrics().horizontalAdvance(note->text()) <= note->contentsRect().width(), qPrintable(note->text()));
    QVERIFY(note->text().startsWith("No GPU: "));
    QCOMPARE(note->text().count('\n'), 0);
  }

  // In a narrow panel a long device name is elided, not scrolled sideways: no horizontal scroll
  // bar eats the list's height, and every device's row is whole in view, its name in a tooltip.
  void everyDeviceRowIsWholeInANarrowPanel() {
    ExperimentForm form;
    form.resize(300, 700);
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    QListWidget* list = form.deviceList();
    QVERIFY(!list->horizontalScrollBar()->isVisible());
    for (int i = 0; i < std::min(4, list->count()); ++i) {
      const QRect row = list->visualItemRect(list->item(i));
      QVERIFY2(row.top() >= 0 && row.bottom() < list->viewport()->height(),
               qPrintable(QString("row %1 (%2 px from %3) is cut at %4 px").arg(i).arg(row.height()).arg(row.top())
                              .arg(list->viewport()->height())));
      QCOMPARE(list->item(i)->toolTip(), list->item(i)->text());
    }
  }

  void invalidFieldsAreMarkedWithTheReason_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("negative lr") << "lr" << "-1" << "learning rate (lr) must be a positive";
    QTest::newRow("lr not a number") << "lr" << "fast" << "not a number";
    QTest::newRow("lr nan") << "lr" << "nan" << "must be a positive finite";
    QTest::newRow("momentum 1") << "momentum" << "1" << "momentum must be in [0, 1)";
    QTest::newRow("negative weight decay") << "weight_decay" << "-0.001" << "weight decay (weight_decay) must be 0";
    QTest::newRow("weight decay not a number") << "weight_decay" << "lots" << "not a number; the default is 0";
    QTest::newRow("batch 0") << "batch_size" << "0" << "must be at least 1";
    QTest::newRow("epochs 0") << "epochs" << "0" << "\"Epochs\" must be at least 1";  // named as the form names it
  }
  void invalidFieldsAreMarkedWithTheReason() {
    QFETCH(QString, field);
    QFETCH(QString, text);
    QFETCH(QString, expected);
    ExperimentForm form;
    QSignalSpy validity(&form, &ExperimentForm::validityChanged);
    if (field == "lr") form.learningRateEdit()->setText(text);
    if (field == "momentum") form.momentumEdit()->setText(text);
    if (field == "weight_decay") form.weightDecayEdit()->setText(text);
    if (field == "batch_size") form.batchSizeBox()->setValue(text.toInt());
    if (field == "epochs") form.epochsBox()->setValue(text.toInt());
    QVERIFY(!form.isValid());
    QCOMPARE(validity.count(), 1);
    QCOMPARE(validity.first().first().toBool(), false);
    QVERIFY2(form.errors().value(field).contains(expected), qPrintable(form.errors().value(field)));
    auto* label = form.findChild<QLabel*>("error-" + field);
    QVERIFY(label && !label->isHidden());
    QCOMPARE(label->text(), form.errors().value(field));
    // A spin box is marked by a light red field and keeps its native style (a style sheet
    // drew its arrows as two flat bars).
    QWidget* box = field == "batch_size" ? static_cast<QWidget*>(form.batchSizeBox())
                   : field == "epochs"   ? static_cast<QWidget*>(form.epochsBox())
                                         : nullptr;
    if (box) {
      QVERIFY(box->styleSheet().isEmpty());
      QVERIFY(box->palette().color(QPalette::Base) != QApplication::palette(box).color(QPalette::Base));
    }
    // Fixing it clears the mark.
    if (field == "lr") form.learningRateEdit()->setText("0.05");
    if (field == "momentum") form.momentumEdit()->setText("0.5");
    if (field == "weight_decay") form.weightDecayEdit()->setText("0.0005");
    if (field == "batch_size") form.batchSizeBox()->setValue(64);
    if (field == "epochs") form.epochsBox()->setValue(2);
    QVERIFY(form.isValid());
    QVERIFY(label->isHidden());
    if (box) QCOMPARE(box->palette().color(QPalette::Base), QApplication::palette(box).color(QPalette::Base));
  }

  void devicesMustFitTheMode() {
    ExperimentForm form;
    form.modeBox()->setCurrentIndex(form.modeBox()->findData("single"));
    QCOMPARE(form.cpuReplicasBox()->value(), 1);  // choosing single mode sets one replica
    QVERIFY(form.isValid());
    form.cpuReplicasBox()->setValue(4);
    QVERIFY(!form.isValid());  // cpu*4 is four models
    QVERIFY(form.errors().value("devices").contains("single mode trains one model"));
    form.cpuReplicasBox()->setValue(1);
    QVERIFY(form.isValid());
    // Back to an ensemble: the members it had before single mode (it was left at one, wrong).
    form.modeBox()->setCurrentIndex(form.modeBox()->findData("ensemble"));
    QCOMPARE(form.cpuReplicasBox()->value(), 4);
    QVERIFY(form.isValid());
    form.cpuReplicasBox()->setValue(1);
    QVERIFY(form.errors().value("devices").contains("an ensemble needs two members or more"));
    form.cpuReplicasBox()->setValue(2);
    QVERIFY(form.isValid());
    form.modeBox()->setCurrentIndex(form.modeBox()->findData("data-parallel"));
    form.cpuReplicasBox()->setValue(3);
    // The engine's rule, in its words (RunMode::checkReplicas): the form does not repeat it.
    QVERIFY2(form.errors().value("devices").contains("is not a multiple of the 3 replicas"),
             qPrintable(form.errors().value("devices")));
    form.deviceList()->item(0)->setCheckState(Qt::Unchecked);
    QVERIFY(form.errors().value("devices").contains("pick at least one device"));
  }

  // The batch against the training samples the run would have (the dataset's, or the train
  // limit), read from the folder's IDX header; a folder without IDX files is not added.
  void theBatchMustFitTheTrainingSamples() {
    QTemporaryDir folder;
    writeIdxFolder(folder.path(), 3000);
    ExperimentForm form;
    QVERIFY(form.addDatasetFolder(folder.path()).isEmpty());
    QCOMPARE(form.datasetBox()->currentData().toString(), folder.path());
    form.batchSizeBox()->setValue(5000);
    QVERIFY2(form.errors().value("batch_size").contains("larger than the 3000 training samples"),
             qPrintable(form.errors().value("batch_size")));
    form.batchSizeBox()->setValue(3000);
    QVERIFY(form.isValid());
    form.trainLimitBox()->setValue(1000);
    QVERIFY(form.errors().value("batch_size").contains("1000 training samples (the train limit)"));
    form.trainLimitBox()->setValue(0);
    form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("synthetic"));  // 2048 samples
    QVERIFY(form.errors().value("batch_size").contains("2048"));
    form.batchSizeBox()->setValue(128);
    QVERIFY(form.isValid());

    QTemporaryDir empty;
    const int before = form.datasetBox()->count();
    const QString refused = form.addDatasetFolder(empty.path());
    QVERIFY2(refused.contains("has no train-images-idx3-ubyte"), qPrintable(refused));
    QCOMPARE(form.datasetBox()->count(), before);
  }

  // A folder of Kaggle's CSV files, opened as a dataset, is offered an import into
  // FOLDER-idx beside it (it had only been refused): declined, nothing is written; accepted,
  // the folder written is added and picked and its line says what it holds; opened again,
  // the folder imported before is offered to be opened, and is.
  void aFolderOfCsvFilesIsOfferedAnImport() {
    QTemporaryDir root;
    const QString kaggle = root.filePath("kaggle"), imported = root.filePath("kaggle-idx");
    idx_files::writeKaggleCsvFolder(kaggle);
    ExperimentForm form;
    MessageBoxAnswers answers(&form);
    QStringList& asked = answers.asked;
    QString& press = answers.press;
    const int before = form.datasetBox()->count();
    press = "Cancel";
    QCOMPARE(form.openDatasetFolder(kaggle), QString());  // declined: nothing to say, nothing written
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked[0].contains("holds CSV files, fashion-mnist_train.csv and fashion-mnist_test.csv") &&
                 asked[0].contains("into the MNIST-format folder " + imported),
             qPrintable(asked[0]));
    QVERIFY(!QFileInfo::exists(imported));
    QCOMPARE(form.datasetBox()->count(), before);
    press = "Import";
    QCOMPARE(form.openDatasetFolder(kaggle), QString());
    QCOMPARE(asked.size(), 2);
    QCOMPARE(form.datasetBox()->currentData().toString(), imported);
    QCOMPARE(form.findChild<QLabel*>("datasetShape")->text(), QString("12 training and 6 test images of 2×2, 3 classes"));
    QCOMPARE(ensemble::datasetShape(imported.toStdString()).trainSamples, 12);
    press = "Open";
    form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("synthetic"));
    QCOMPARE(form.openDatasetFolder(kaggle), QString());
    QCOMPARE(asked.size(), 3);
    QVERIFY2(asked[2].contains("imported before into " + imported), qPrintable(asked[2]));
    QCOMPARE(form.datasetBox()->currentData().toString(), imported);
    // A folder of CSV files the names do not tell apart is refused, with the command.
    const QString other = root.filePath("other");
    QVERIFY(QDir().mkpath(other));
    QFile csv(other + "/data.csv");
    QVERIFY(csv.open(QIODevice::WriteOnly) && csv.write("1,2\n") == 4);
    csv.close();
    const QString refused = form.openDatasetFolder(other);
    QVERIFY2(refused.contains("it holds CSV files (data.csv)") && refused.contains("ensemble-lab-cli import"), qPrintable(refused));
    QCOMPARE(asked.size(), 3);
    QVERIFY2(answers.unanswered.isEmpty(), qPrintable(answers.unanswered));
  }

  // A folder that holds one NumPy archive (~/.keras/datasets with Keras's mnist.npz) is offered
  // its import into NAME-idx beside it; a damaged archive is said, and nothing written.
  void aFolderWithANumPyArchiveIsOfferedAnImport() {
    QTemporaryDir root;
    const QString keras = root.filePath("keras"), imported = root.filePath("keras/mnist-idx");
    QVERIFY(QDir().mkpath(keras));
    QByteArray pixels, labels;
    for (int i = 0; i < 12; ++i) {
      labels += char(i % 3);
      for (int j = 0; j < 9; ++j) pixels += char(i * 9 + j);
    }
    const QByteArray archive = npz_files::zipArchive({{"x_train.npy", npz_files::npyFile("|u1", {12, 3, 3}, pixels)},
                                                      {"y_train.npy", npz_files::npyFile("<i8", {12}, [&] {
                                                         QByteArray wide;  // int64 labels, as NumPy's defaults make them
                                                         for (const char label : labels) wide += QByteArray(1, label) + QByteArray(7, '\0');
                                                         return wide;
                                                       }())},
                                                      {"x_test.npy", npz_files::npyFile("|u1", {6, 3, 3}, pixels.left(54))},
                                                      {"y_test.npy", npz_files::npyFile("|u1", {6}, labels.left(6))}},
                                                     8);
    QFile file(keras + "/mnist.npz");
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(archive) == archive.size());
    file.close();
    ExperimentForm form;
    MessageBoxAnswers answers(&form);
    answers.press = "Cancel";
    QCOMPARE(form.openDatasetFolder(keras), QString());  // declined: nothing to say, nothing written
    QCOMPARE(answers.asked.size(), 1);
    QVERIFY2(answers.asked[0].contains("holds the NumPy archive mnist.npz") &&
                 answers.asked[0].contains("into the MNIST-format folder " + imported),
             qPrintable(answers.asked[0]));
    QVERIFY(!QFileInfo::exists(imported));
    answers.press = "Import";
    QCOMPARE(form.openDatasetFolder(keras), QString());
    QCOMPARE(form.datasetBox()->currentData().toString(), imported);
    QCOMPARE(form.findChild<QLabel*>("datasetShape")->text(), QString("12 training and 6 test images of 3×3, 3 classes"));
    answers.press = "Open";
    form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("synthetic"));
    QCOMPARE(form.openDatasetFolder(keras), QString());
    QVERIFY2(answers.asked.last().contains("imported before into " + imported), qPrintable(answers.asked.last()));
    QCOMPARE(form.datasetBox()->currentData().toString(), imported);
    // A damaged archive: the import's reason comes back to be shown, and no folder is left.
    const QString damaged = root.filePath("damaged");
    QVERIFY(QDir().mkpath(damaged));
    QFile cut(damaged + "/mnist.npz");
    QVERIFY(cut.open(QIODevice::WriteOnly) && cut.write(archive.left(archive.size() - 30)) == archive.size() - 30);
    cut.close();
    answers.press = "Import";
    const QString error = form.openDatasetFolder(damaged);
    QVERIFY2(error.contains("mnist.npz is not a ZIP archive as a NumPy .npz file is"), qPrintable(error));
    QVERIFY(!QFileInfo::exists(damaged + "/mnist-idx"));
    QVERIFY2(answers.unanswered.isEmpty(), qPrintable(answers.unanswered));
  }

  // Under the dataset, a line says what it holds (the CLI's data line, before the run), read
  // from the folder's files as it is picked: any sample count, image size and class count.
  // A folder the run would refuse shows the reason instead.
  void theDatasetLineSaysWhatTheDatasetHolds() {
    ExperimentForm form;
    const auto* line = form.findChild<QLabel*>("datasetShape");
    QVERIFY(line);
    form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("synthetic"));
    QCOMPARE(line->text(), QString("2048 training and 512 test images of 16×16, 10 classes"));

    QTemporaryDir folder;
    idx_files::writeIdxSplit(folder.path(), "train", {300, 20, 24, 7});
    idx_files::writeIdxSplit(folder.path(), "t10k", {50, 20, 24, 5});  // a split may lack classes
    QVERIFY(form.addDatasetFolder(folder.path()).isEmpty());
    QCOMPARE(line->text(), QString("300 training and 50 test images of 20×24, 7 classes"));
    QVERIFY(!line->isHidden());
    QVERIFY(form.errors().value("dataset").isEmpty());

    // Labels that skip a number are named (EMNIST's letters: 27 classes, label 0 unused).
    QTemporaryDir letters;
    idx_files::writeIdxSplit(letters.path(), "train", {260, 8, 8, 26, 1});
    idx_files::writeIdxSplit(letters.path(), "t10k", {52, 8, 8, 26, 1});
    QVERIFY(form.addDatasetFolder(letters.path()).isEmpty());
    QCOMPARE(line->text(), QString("260 training and 52 test images of 8×8, 27 classes (labels 1-26)"));

    QTemporaryDir mixed;
    idx_files::writeIdxSplit(mixed.path(), "train", {40, 20, 24, 3});
    idx_files::writeIdxSplit(mixed.path(), "t10k", {10, 28, 28, 3});
    QVERIFY(form.addDatasetFolder(mixed.path()).isEmpty());
    QVERIFY2(form.errors().value("dataset").contains("mixes image sizes: train images are 20x24, test images 28x28"),
             qPrintable(form.errors().value("dataset")));
    QVERIFY(line->isHidden());
    QVERIFY(!form.isValid());

    // The embedded default, where its package is installed: the real Fashion-MNIST.
    if (QFile::exists(QString::fromStdString(ensemble::defaultFashionMnistFolder()))) {
      form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("fashion-mnist"));
      QCOMPARE(line->text(), QString("60000 training and 10000 test images of 28×28, 10 classes"));
      QVERIFY(!line->isHidden());
    }
  }

  // File dialogs open where the user last chose, per kind of file, and remember across
  // sessions (QSettings); the home folder before any choice.
  // In a tall panel (a 2560x1440 screen) the spare height goes below the form, not into
  // the dataset's description line (which had stood in 100 px of blank above and below).
  void aTallPanelKeepsTheFormCompact() {
    auto* form = new ExperimentForm;
    QAction start("Start");
    ensemble::ui::ExperimentDock dock(form, &start);
    dock.resize(450, 1400);
    dock.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dock));
    auto* shape = form->findChild<QLabel*>("datasetShape");
    QVERIFY(!shape->text().isEmpty());
    const int lines = shape->heightForWidth(shape->width()) + 2;
    QVERIFY2(shape->height() <= lines, qPrintable(QString("%1 px tall for %2 px of text").arg(shape->height()).arg(lines)));
    QVERIFY2(form->height() <= form->sizeHint().height() + 2, qPrintable(QString::number(form->height())));
  }

  void dialogsOpenWhereTheUserLastChose() {
    using namespace ensemble::ui::dialogs;
    QSettings().remove("dialogs");
    QCOMPARE(startFolder(Place::Exports), QDir::homePath());
    QTemporaryDir exports, datasets;
    remember(Place::Exports, exports.filePath("test-accuracy.png"));  // a file: its folder
    remember(Place::Datasets, datasets.path());                       // a folder: itself
    QCOMPARE(startFolder(Place::Exports), QFileInfo(exports.path()).absoluteFilePath());
    QCOMPARE(suggestedPath(Place::Exports, "runs.csv"), QDir(exports.path()).filePath("runs.csv"));
    QCOMPARE(startFolder(Place::Datasets), QFileInfo(datasets.path()).absoluteFilePath());
    remember(Place::Exports, QString());  // a cancelled dialog changes nothing
    QCOMPARE(startFolder(Place::Exports), QFileInfo(exports.path()).absoluteFilePath());
  }

  void memberFormAndPrecisionAreChecked() {
    ExperimentForm form;  // ensemble of cnn on cpu*4
    form.memberFormBox()->setCurrentIndex(form.memberFormBox()->findData("stacked"));
    QVERIFY(form.isValid());
    QCOMPARE(form.config().memberForm, ensemble::MemberForm::Stacked);
    form.modelBox()->setCurrentText("lenet");  // stacking is built for the cnn
    QVERIFY(form.errors().value("member_form").contains("built for the cnn model"));
    form.modelBox()->setCurrentText("cnn");
    QVERIFY(form.isValid());
    form.precisionBox()->setCurrentIndex(form.precisionBox()->findData("tf32"));  // no GPU picked
    QVERIFY(form.errors().value("precision").contains("pick a GPU"));
    form.precisionBox()->setCurrentIndex(form.precisionBox()->findData("bf16"));
    QVERIFY(form.isValid());
    QCOMPARE(form.config().precision, ensemble::Precision::Bf16);
  }

  // Every setting the form shows (its record says inForm) walks through its widget: the
  // form opens at the record's default, shows a config's value, and config() returns it
  // (tests/SettingSamples.h writes the values out by hand).
  void everyFormSettingWalksThroughItsWidget() {
    ExperimentForm form;
    const ExperimentConfig defaults;
    for (const ConfigField& field : configFields()) {
      if (field.inForm && std::string(field.key) != "devices") {
        QCOMPARE(field.get(form.config()), field.get(defaults));
      }
    }
    int walked = 0;
    for (const testing::SettingSample& sample : testing::settingSamples()) {
      const ConfigField* record = configFieldByKey(sample.key);
      QVERIFY2(record, sample.key);
      const ConfigField& field = *record;
      if (!field.inForm || std::string(sample.key) == "devices") continue;  // the device picker: devicesMustFitTheMode
      ExperimentConfig config;
      config.merge({{sample.key, sample.value}}, "test");
      form.showConfig(config);
      QVERIFY2(sample.holds(form.config()), sample.key);
      form.showConfig(defaults);
      QVERIFY2(!sample.holds(form.config()), sample.key);
      ++walked;
    }
    QCOMPARE(walked, 16);  // every setting of the form but the devices
  }

  void setupSurvivesARestart() {
    QSettings settings;
    settings.clear();
    QTemporaryDir kmnist;
    writeIdxFolder(kmnist.path(), 600);
    {
      ExperimentForm form;
      form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("synthetic"));
      form.modelBox()->setCurrentText("lenet");
      form.learningRateEdit()->setText("0.02");
      form.momentumEdit()->setText("0.8");
      form.batchSizeBox()->setValue(32);
      form.epochsBox()->setValue(3);
      form.seedBox()->setValue(17);
      form.evalEveryBox()->setValue(117);
      form.cpuReplicasBox()->setValue(2);
      form.precisionBox()->setCurrentIndex(form.precisionBox()->findData("bf16"));
      QVERIFY(form.config().deterministic);  // on by default
      form.deterministicBox()->setChecked(false);
      QVERIFY(!form.config().deterministic);
      QVERIFY(form.addDatasetFolder(kmnist.path()).isEmpty());
      form.save(settings);
    }
    ExperimentForm restored;
    restored.load(settings);
    const auto config = restored.config();
    QCOMPARE(QString::fromStdString(config.dataset), kmnist.path());
    QCOMPARE(config.model, ensemble::ModelKind::LeNet);
    QCOMPARE(config.learningRate, 0.02);
    QCOMPARE(config.momentum, 0.8);
    QCOMPARE(config.batchSize, int64_t(32));
    QCOMPARE(config.epochs, int64_t(3));
    QCOMPARE(config.seed, std::uint64_t(17));
    QCOMPARE(config.evalEvery, int64_t(117));
    QCOMPARE(config.precision, ensemble::Precision::Bf16);
    QVERIFY(!config.deterministic);
    QCOMPARE(QString::fromStdString(config.devices), QString("cpu*2"));
  }

  // Folders opened before stay on offer after a restart, though another dataset was chosen
  // last (the one chosen last alone had come back); one deleted since is not offered.
  void openedDatasetFoldersSurviveARestart() {
    QSettings settings;
    settings.clear();
    QTemporaryDir kmnist, mine;
    writeIdxFolder(kmnist.path(), 600);
    writeIdxFolder(mine.path(), 300);
    {
      ExperimentForm form;
      QVERIFY(form.addDatasetFolder(kmnist.path()).isEmpty());
      QVERIFY(form.addDatasetFolder(mine.path()).isEmpty());
      form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("synthetic"));
      form.save(settings);
    }
    ExperimentForm restored;
    restored.load(settings);
    QCOMPARE(QString::fromStdString(restored.config().dataset), QString("synthetic"));
    QVERIFY(restored.datasetBox()->findData(kmnist.path()) >= 0);
    QVERIFY(restored.datasetBox()->findData(mine.path()) >= 0);
    const QString gone = mine.path();
    mine.remove();
    ExperimentForm later;
    later.load(settings);
    QVERIFY(later.datasetBox()->findData(kmnist.path()) >= 0);
    QCOMPARE(later.datasetBox()->findData(gone), -1);
  }
};

QTEST_MAIN(TestExperimentForm)
#include "TestExperimentForm.moc"
