// In-app help: Help > Guide and F1 open the bundled guide (non-modal), F1 in a view opens that
// view's section, and the guide says what the categories and the projection are.
#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSettings>
#include <QTabWidget>
#include <QTest>
#include <QTextBrowser>

#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/guidedialog.h"
#include "ui/mainwindow.h"
#include "ui/verify/gpustate.h"
#include "ui/views/projectionview.h"

using namespace reach;

class TestGuideDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        QSettings().clear();
    }

    void helpMenuHasTheGuideOnF1() {
        MainWindow window;
        QAction* guide = nullptr;
        for (QAction* menu : window.menuBar()->actions()) {
            if (menu->text() == QLatin1String("&Help") && menu->menu())
                guide = menu->menu()->findChild<QAction*>(QStringLiteral("helpGuide"));
        }
        QVERIFY2(guide, "Help > Guide is missing");
        QCOMPARE(guide->text(), QStringLiteral("&Guide"));
        QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
        QCOMPARE(guide->shortcut(), QKeySequence(Qt::Key_F1));
    }

    void f1OpensTheGuideWithTheCategoriesAndTheProjection() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(!window.guide());
        QTest::keyClick(&window, Qt::Key_F1);
        GuideDialog* guide = window.guide();
        QVERIFY2(guide, "F1 opened no guide");
        QVERIFY(guide->isVisible());
        QVERIFY(!guide->isModal());  // the workbench stays usable beside it
        const QString text = guide->browser()->toPlainText();
        for (const char* category :
             {"library-optimized", "addressable", "overhead", "unclassified"})
            QVERIFY2(text.contains(QLatin1String(category)), category);
        QVERIFY(text.contains(QStringLiteral("A*w*(1-1/m)")));
        QVERIFY(text.contains(QStringLiteral("first rule that matches")));
        QVERIFY(text.contains(QStringLiteral("count from 1")));
        QVERIFY(text.contains(QStringLiteral("float64")));
        // The no-GPU sentence is the status bar's own, not a copy that could drift.
        QVERIFY(text.contains(noGpuAdvice(QStringLiteral("no CUDA-capable device is detected"))));
        QVERIFY(!text.contains(QStringLiteral("@NO_GPU_ADVICE@")));
        // Fits a 1280x720 screen.
        QVERIFY(guide->width() <= 1280 && guide->height() <= 720);
    }

    void f1InAViewOpensItsSection() {
        MainWindow window;
        window.resize(1200, 680);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QCOMPARE(window.tabs()->currentIndex(), 0);
        QTest::keyClick(&window, Qt::Key_F1);
        QVERIFY(window.guide());
        QCOMPARE(window.guide()->section(), QStringLiteral("breakdown"));
        const int top = window.guide()->browser()->verticalScrollBar()->value();
        for (const auto& view : window.views()) {
            window.tabs()->setCurrentWidget(view.widget);
            window.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&window));
            QTest::keyClick(&window, Qt::Key_F1);
            QCOMPARE(window.guide()->section(), view.key);
            // Every view's key is a section of the guide, further down than the top one.
            if (view.key != QLatin1String("breakdown"))
                QVERIFY2(window.guide()->browser()->verticalScrollBar()->value() > top,
                         qPrintable(view.key));
        }
        if (qEnvironmentVariableIsSet("REACH_UI_DUMP")) {
            window.showGuide(QStringLiteral("projection"));
            QTest::qWait(100);
            window.guide()->grab().save(qEnvironmentVariable("REACH_UI_DUMP") +
                                        QStringLiteral("/guide.png"));
        }
    }
};

QTEST_MAIN(TestGuideDialog)
#include "guidedialog_test.moc"
