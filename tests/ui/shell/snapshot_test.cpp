// `reach --snapshot DIR`: every view rendered to DIR/<view>.png at the requested pixel size,
// after the background loads finished (the H200 profiles are in the picture, not a spinner).
#include <sqlite3.h>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "core/base/inputerror.h"
#include "core/trace/profilereader.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/mainwindow.h"
#include "ui/session.h"
#include "ui/snapshot.h"
#include "ui/theme.h"
#include "ui/views/breakdownview.h"

using namespace reach;

namespace {

// A real figure, not an empty frame: many colours, and the addressable colour among them.
void checkLooksLikeAFigure(const QImage& image) {
    QSet<QRgb> colours;
    bool addressable = false;
    const QRgb addr = Theme::categoryColor(Category::Addressable).rgb();
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            const QRgb p = image.pixel(x, y);
            colours.insert(p);
            addressable = addressable || (p & 0xffffff) == (addr & 0xffffff);
        }
    }
    QVERIFY2(colours.size() > 20, "the snapshot is nearly uniform");
    QVERIFY2(addressable, "no addressable-coloured bar in the snapshot");
}

}  // namespace

class TestSnapshot : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::setUpDeterministicGui(); }

    void inProcessSnapshotsHaveTheRequestedSize() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QTemporaryDir dir;
        QStringList written;
        QString error;
        QVERIFY2(writeSnapshots(window, dir.path(), QSize(640, 480), &written, &error),
                 qPrintable(error));
        QCOMPARE(written.size(), int(window.views().size()));
        for (const QString& path : written) {
            const QImage image(path);
            QVERIFY2(!image.isNull(), qPrintable(path));
            QCOMPARE(image.size(), QSize(640, 480));
            // The two views this suite owns must show data; the speedup view (tested by its
            // own suite) is empty until the bundled project has measured records.
            if (path.endsWith(QLatin1String("/breakdown.png")) ||
                path.endsWith(QLatin1String("/projection.png")))
                checkLooksLikeAFigure(image);
        }
        // All 13 workloads were loaded before rendering.
        QCOMPARE(window.breakdownView()->model()->rowCount(), 13);
        // The views went back into their tabs.
        QCOMPARE(window.tabs()->count(), int(window.views().size()));
    }

    void commandLineSnapshot() {
        QTemporaryDir dir;
        QProcess reach;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("REACH_DATASETS"), QStringLiteral(REACH_DATASETS));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.path() + QStringLiteral("/config"));
        reach.setProcessEnvironment(env);
        reach.start(QStringLiteral(REACH_GUI_BINARY),
                    {QStringLiteral("--snapshot"), dir.path() + QStringLiteral("/out"),
                     QStringLiteral("--size"), QStringLiteral("900x600")});
        QVERIFY(reach.waitForFinished(240000));
        QCOMPARE(reach.exitCode(), 0);
        for (const char* view : {"breakdown", "projection"}) {
            const QImage image(dir.path() + QStringLiteral("/out/") + view +
                               QStringLiteral(".png"));
            QVERIFY2(!image.isNull(), view);
            QCOMPARE(image.size(), QSize(900, 600));
            checkLooksLikeAFigure(image);
        }
    }

    // A file that cannot be read is not a blank set of PNGs: exit 2 with reach-cli's line, and
    // soon: a hostile Nsight export (a view of an endless recursive CTE where the kernels should
    // be) once hung the snapshot for ever; a leaderboard list once became a workload of 0 us.
    void unreadableFileExitsTwoWithTheCliLine_data() {
        QTest::addColumn<QString>("bad");
        QTest::newRow("truncated gzip")
            << QStringLiteral(REACH_TEST_DATA "/bad-cli/truncated_gzip.json.gz");
        QTest::newRow("leaderboard list")
            << QStringLiteral(REACH_TEST_DATA "/bad-cli/leaderboard_list.json");
        QTest::newRow("endless view") << QString();  // built below
    }
    void unreadableFileExitsTwoWithTheCliLine() {
        QFETCH(QString, bad);
        QTemporaryDir dir;
        if (bad.isEmpty()) {
            bad = dir.filePath(QStringLiteral("endless.sqlite"));
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(bad.toUtf8().constData(), &db), SQLITE_OK);
            QCOMPARE(sqlite3_exec(db,
                                  "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                                  "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE "
                                  "c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS "
                                  "start, x + 1 AS end, 0 AS deviceId, 7 AS streamId, 0 AS "
                                  "shortName, 0 AS demangledName, 0 AS correlationId FROM c;",
                                  nullptr, nullptr, nullptr),
                     SQLITE_OK);
            sqlite3_close(db);
        }
        QString expected;
        try {
            readProfile(bad.toStdString());
        } catch (const InputError& e) {
            expected = QString::fromUtf8(e.what());
        }
        QVERIFY2(expected.startsWith(bad), qPrintable(expected));
        QProcess reach;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.path() + QStringLiteral("/config"));
        reach.setProcessEnvironment(env);
        reach.start(QStringLiteral(REACH_GUI_BINARY),
                    {QStringLiteral("--snapshot"), dir.path() + QStringLiteral("/out"), bad});
        // A bound for a hang, not a timing: the refusal takes well under a second.
        QVERIFY2(reach.waitForFinished(30000), "the snapshot did not end");
        QCOMPARE(reach.exitCode(), 2);
        // Qt may warn about the environment first; the error is one whole line of its own.
        const QString err = QString::fromUtf8(reach.readAllStandardError());
        const QStringList lines = err.split('\n');
        QVERIFY2(lines.contains(expected), qPrintable(lines.join('\n')));
        QVERIFY2(!err.contains(QStringLiteral("Destroyed while process")), qPrintable(err));
        QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/out/breakdown.png")));
    }

    void badSizeIsUsageError() {
        QProcess reach;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        reach.setProcessEnvironment(env);
        reach.start(QStringLiteral(REACH_GUI_BINARY),
                    {QStringLiteral("--snapshot"), QStringLiteral("/tmp/unused"),
                     QStringLiteral("--size"), QStringLiteral("wide")});
        QVERIFY(reach.waitForFinished(60000));
        QCOMPARE(reach.exitCode(), 2);
        QVERIFY(reach.readAllStandardError().contains("--size"));
    }

    // The workbench reads its command line as reach-cli and reach-verify do (app/args): an
    // unknown option is one line and status 2; Qt's own -platform still reaches Qt.
    void unknownOptionIsOneLineAndStatusTwo() {
        QProcess reach;
        reach.start(QStringLiteral(REACH_GUI_BINARY),
                    {QStringLiteral("-platform"), QStringLiteral("offscreen"),
                     QStringLiteral("--snapshot=/tmp/unused"), QStringLiteral("--no-such")});
        QVERIFY(reach.waitForFinished(60000));
        QCOMPARE(reach.exitCode(), 2);
        const QStringList lines = QString::fromUtf8(reach.readAllStandardError())
                                      .split('\n', Qt::SkipEmptyParts)
                                      .filter(QStringLiteral("reach:"));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.front().contains(QStringLiteral("unknown argument '--no-such'")),
                 qPrintable(lines.front()));
    }
};

QTEST_MAIN(TestSnapshot)
#include "snapshot_test.moc"
