// Exported figures read as a reviewer reads them (issue 16, item 2): every PDF the three figures
// export, at 3.5 in and 7 in, for the bundled sample and for a project of 20 workloads with long,
// look-alike names, is checked with poppler's pdftotext -bbox: no two words overlap, none is cut
// at the page edge; the workload labels stay distinct and keep their hardware tag; the speedup
// axis's tick labels do not run together. Each PDF is also rendered with pdftoppm (REACH_UI_DUMP
// keeps the PNGs for looking at them).
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRectF>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/support/plotstestdata.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/figure/figureexporter.h"
#include "ui/figure/figurelabels.h"
#include "ui/plots/headroomplot.h"
#include "ui/plots/speedupplot.h"
#include "ui/session.h"
#include "ui/views/breakdownview.h"
#include "ui/views/projectionview.h"
#include "ui/views/rooflineview.h"

using namespace reach;

namespace {

struct Word {
    QRectF box;
    QString text;
};

struct Page {
    QSizeF size;
    std::vector<Word> words;
};

QString runTool(const QString& program, const QStringList& args, int* status = nullptr) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(120000))
        return {};
    if (status)
        *status = p.exitCode();
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
}

Page readWords(const QString& pdf) {
    const QString html = runTool(QStringLiteral("pdftotext"), {"-bbox", pdf, "-"});
    Page page;
    const QRegularExpression pageRe(R"re(<page width="([\d.]+)" height="([\d.]+)">)re");
    const auto pm = pageRe.match(html);
    if (pm.hasMatch())
        page.size = QSizeF(pm.captured(1).toDouble(), pm.captured(2).toDouble());
    const QRegularExpression wordRe(
        R"re(<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)</word>)re");
    for (auto it = wordRe.globalMatch(html); it.hasNext();) {
        const auto m = it.next();
        const QPointF a(m.captured(1).toDouble(), m.captured(2).toDouble());
        const QPointF b(m.captured(3).toDouble(), m.captured(4).toDouble());
        page.words.push_back({QRectF(a, b), m.captured(5)});
    }
    return page;
}

// pdftotext's boxes span the font's whole ascent and descent, so the lines of one two-line
// label touch: two words overlap when their boxes share more than a sliver (20 % of the smaller
// height, 0.5 pt across).
bool overlap(const QRectF& a, const QRectF& b) {
    const QRectF i = a.intersected(b);
    if (i.isEmpty())
        return false;
    const double h = std::min(a.height(), b.height());
    return i.height() > 0.2 * h && i.width() > 0.5;
}

// Every failure found in one PDF, one line each.
QStringList layoutProblems(const QString& pdf) {
    QStringList problems;
    const Page page = readWords(pdf);
    if (page.size.isEmpty() || page.words.empty())
        return {QStringLiteral("%1: no page or no text").arg(pdf)};
    const QRectF sheet(QPointF(0, 0), page.size);
    for (size_t i = 0; i < page.words.size(); ++i) {
        const Word& w = page.words[i];
        if (!sheet.adjusted(-0.01, -0.01, 0.01, 0.01).contains(w.box))
            problems << QStringLiteral("'%1' is cut at the page edge").arg(w.text);
        for (size_t j = i + 1; j < page.words.size(); ++j) {
            if (overlap(w.box, page.words[j].box))
                problems << QStringLiteral("'%1' overlaps '%2'").arg(w.text, page.words[j].text);
        }
    }
    return problems;
}

// A published study table of 20 workloads whose names share a long beginning and differ only
// at the end, the case that middle-elided labels made look alike.
QString writeLongNamesTable(const QString& dir) {
    QJsonArray workloads;
    for (int i = 0; i < 20; ++i) {
        QJsonObject w;
        w["name"] = QStringLiteral(
                        "DeepSeek-R1-Distill-Llama-70B inference, tensor-parallel 8, "
                        "batch %1, sequence %2")
                        .arg(1 << (i % 5))
                        .arg(1024 * (1 + i / 5));
        w["library_optimized"] = 0.2 + 0.03 * i;
        w["addressable"] = 0.7 - 0.03 * i;
        workloads.append(w);
    }
    QJsonObject doc;
    doc["projection"] = QJsonObject{{"win_rate", 0.417}, {"median_speedup", 1.552}};
    doc["source"] = QStringLiteral("Reach test: 20 look-alike workloads (A100-80GB, bf16)");
    doc["workloads"] = workloads;
    QFile f(dir + QStringLiteral("/long_names.json"));
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QJsonDocument(doc).toJson());
    return f.fileName();
}

}  // namespace

class TestFigureLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::setUpDeterministicGui(); }

    void breakdownAndProjection_data() {
        QTest::addColumn<QString>("project");
        QTest::addColumn<double>("width");
        for (double width : {3.5, 7.0}) {
            QTest::addRow("sample %.1f in", width) << QString() << width;
            QTest::addRow("20 long names %.1f in", width) << QStringLiteral("long") << width;
        }
    }

    void breakdownAndProjection() {
        QFETCH(QString, project);
        QFETCH(double, width);
        Session session;
        QString error;
        if (project.isEmpty()) {
            QVERIFY2(session.openDefault(&error), qPrintable(error));
        } else {
            const QString table = writeLongNamesTable(m_dir.path());
            QVERIFY(!table.isEmpty());
            QVERIFY2(session.openProject(table, &error), qPrintable(error));
            QCOMPARE(session.workloads().size(), size_t(20));
        }
        QVERIFY(test::waitIdle(session));
        FigureOptions options;
        options.widthIn = width;
        BreakdownView breakdown(&session);
        ProjectionView projection(&session);
        projection.setParameters(0.417, 1.552);
        const QString stem = m_dir.filePath(
            QStringLiteral("%1_%2in").arg(project.isEmpty() ? "sample" : project).arg(width));
        const struct {
            const char* name;
            QCustomPlot* plot;
            FigureTable data;
        } figures[] = {{"breakdown", breakdown.plot(), breakdown.figureData()},
                       {"projection", projection.barPlot(), projection.figureData()}};
        for (const auto& f : figures) {
            FigureProvenance prov;
            prov.figure = QString::fromLatin1(f.name);
            prov.rulesName = QString::fromStdString(session.rules().name());
            prov.rulesHash = QString::fromStdString(session.rules().hash());
            const QString pdf = stem + QLatin1Char('_') + prov.figure + QStringLiteral(".pdf");
            FigureExporter::exportFigure(*f.plot, pdf, options, prov, f.data);
            check(pdf);
            // Both figures print the rule set they were classified with.
            const QString text = runTool("pdftotext", {pdf, "-"}).simplified();
            QVERIFY2(text.contains(QStringLiteral("Rule set: ") + prov.rulesName),
                     qPrintable(pdf + ": " + text.left(300)));
            // Every workload keeps its hardware tag.
            QVERIFY2(text.count(QStringLiteral("A100")) >= int(session.workloads().size()) ||
                         project.isEmpty(),
                     qPrintable(pdf + ": " + text.left(400)));
        }
    }

    // The projection with the study's rows and two integration runs beside their profiles'
    // rows (issue 40, acceptance): at 3.5 in the names came out unfitted (the plot named its rows
    // again when the page's layout changed how many it could name), cutting the values and the
    // axis title and running the ticks together. Every word whole and apart, every row valued.
    void projectionWithIntegrationRuns_data() {
        QTest::addColumn<double>("width");
        QTest::addRow("3.5 in") << 3.5;
        QTest::addRow("7 in") << 7.0;
    }

    void projectionWithIntegrationRuns() {
        QFETCH(double, width);
        // As a user makes it: reach-cli figure on the study's table, two profiles and their runs
        // (the GUI's export is the same code: tests/ui/figure/figureexporter_test.cpp).
        const QString pdf = m_dir.filePath(QStringLiteral("integration_%1in.pdf").arg(width));
        const QString data = QStringLiteral(REACH_DATASETS);
        int status = -1;
        const QString out = runTool(
            QStringLiteral(REACH_CLI_BINARY),
            {"figure", "projection", data + "/paper/table3.json",
             data + "/profiles/h200-shapes/dlrm_inference.json.gz",
             data + "/profiles/h200-shapes/resnet50_inference.json.gz", "--integration",
             QStringLiteral(REACH_TEST_DATA "/integrate/h200_integrate_dlrm_inference.json"),
             "--integration",
             QStringLiteral(REACH_TEST_DATA "/integrate/h200_integrate_resnet50_inference.json"),
             "--width-in", QString::number(width), "--out", pdf},
            &status);
        QVERIFY2(status == 0, qPrintable(out));
        check(pdf);
        const QString text = runTool("pdftotext", {pdf, "-"});
        const int values = int(text.count(QRegularExpression(QStringLiteral("\\d+\\.\\d\\d%"))));
        QVERIFY2(values >= 9, qPrintable(QStringLiteral("%1 values for 9 rows: %2")
                                             .arg(values)
                                             .arg(text.simplified().left(400))));
    }

    // The headroom figures (issue 17): the roofline of each shaped workload, the headroom bars
    // and the projection with its speed-of-light lines, on the bundled sample.
    void headroomFigures_data() {
        QTest::addColumn<double>("width");
        QTest::addRow("3.5 in") << 3.5;
        QTest::addRow("7 in") << 7.0;
    }

    void headroomFigures() {
        QFETCH(double, width);
        Session session;
        QString error;
        QVERIFY2(session.openDefault(&error), qPrintable(error));
        QVERIFY(test::waitIdle(session));
        FigureOptions options;
        options.widthIn = width;
        FigureProvenance prov;
        RooflineView roofline(&session);
        int rooflines = 0;
        for (int row = 0; row < int(session.workloads().size()); ++row) {
            roofline.setWorkloadRow(row);
            if (roofline.points().empty())
                continue;
            prov.figure = QStringLiteral("roofline");
            const QString pdf =
                m_dir.filePath(QStringLiteral("roofline_%1_%2in.pdf").arg(row).arg(width));
            FigureExporter::exportFigure(*roofline.plot(), pdf, options, prov,
                                         roofline.figureData());
            check(pdf);
            const QString text = runTool("pdftotext", {pdf, "-"}).simplified();
            QVERIFY2(text.contains(QStringLiteral("H200 SXM 141GB")), qPrintable(text.left(300)));
            ++rooflines;
        }
        QVERIFY(rooflines >= 2);  // at least ResNet-50 and DLRM have shapes
        HeadroomPlot headroom;
        headroom.setWorkloads(session.workloads());
        prov.figure = QStringLiteral("headroom");
        const QString pdf = m_dir.filePath(QStringLiteral("headroom_%1in.pdf").arg(width));
        FigureExporter::exportFigure(headroom, pdf, options, prov, headroom.figureData());
        check(pdf);
        ProjectionView projection(&session);
        projection.setParameters(0.417, 1.552);
        prov.figure = QStringLiteral("projection");
        const QString ppdf = m_dir.filePath(QStringLiteral("projection_sol_%1in.pdf").arg(width));
        FigureExporter::exportFigure(*projection.barPlot(), ppdf, options, prov,
                                     projection.figureData());
        check(ppdf);
        const QString text = runTool("pdftotext", {ppdf, "-"}).simplified();
        QVERIFY2(text.contains(QStringLiteral("speed of light: addressable")),
                 qPrintable(text.left(400)));
    }

    // The test sets, and the bundled sample's evaluation sets as the GUI shows them (its
    // "KernelBench level 1, H200" legend entry is wider than a 3.5 in page).
    void speedups_data() {
        QTest::addColumn<double>("width");
        QTest::addColumn<bool>("sample");
        QTest::addRow("3.5 in") << 3.5 << false;
        QTest::addRow("7 in") << 7.0 << false;
        QTest::addRow("sample 3.5 in") << 3.5 << true;
        QTest::addRow("sample 7 in") << 7.0 << true;
    }

    void speedups() {
        QFETCH(double, width);
        QFETCH(bool, sample);
        RecordsModel model;
        model.setSuspicionOptions(plotstest::suspicionOptions());
        if (sample) {
            Session session;
            QString error;
            QVERIFY2(session.openDefault(&error), qPrintable(error));
            std::vector<RecordSet> sets;
            for (const EvaluationSet& e : session.evaluations()) {
                if (!e.records.empty())
                    sets.push_back({toQString(e.name), e.records, std::nullopt});
            }
            QVERIFY(!sets.empty());
            model.setSets(std::move(sets));
        } else {
            model.setSets(plotstest::loadSets());
        }
        for (SpeedupPlot::Mode mode :
             {SpeedupPlot::Mode::Histogram, SpeedupPlot::Mode::Strip, SpeedupPlot::Mode::Ecdf}) {
            FigureOptions options;
            options.widthIn = width;
            FigureProvenance prov;
            prov.figure = QStringLiteral("speedups");
            const QString pdf = m_dir.filePath(QStringLiteral("speedups_%1%2_%3in.pdf")
                                                   .arg(sample ? "sample_" : "")
                                                   .arg(int(mode))
                                                   .arg(width));
            SpeedupPlot::exportFigure(model, mode, pdf, options, prov);
            check(pdf);
        }
    }

    // Labels that do not fit are shortened, never into look-alikes, and keep their tag.
    void fittedLabelsStayDistinctAndTagged() {
        QMap<double, QString> labels;
        for (int i = 0; i < 6; ++i) {
            labels.insert(i,
                          QStringLiteral("ResNet-50 inference, batch %1 [published, A100]").arg(i));
        }
        labels.insert(6, QStringLiteral("ResNet-50 inference, batch 0 [H200]"));
        const QFontMetricsF tm(QFont(QStringLiteral("DejaVu Sans"), 8));
        for (qsizetype capacity : {1, 2}) {
            const QMap<double, QString> fitted = fitCategoryLabels(labels, tm, 90.0, capacity);
            QSet<QString> seen;
            for (auto it = fitted.begin(); it != fitted.end(); ++it) {
                QVERIFY2(!seen.contains(it.value()), qPrintable(it.value()));
                seen.insert(it.value());
                QVERIFY2(it.value().contains(it.key() == 6 ? "H200" : "A100"),
                         qPrintable(it.value()));
                for (const QString& line : it.value().split('\n'))
                    QVERIFY2(tm.horizontalAdvance(line) <= 90.0 + 0.01, qPrintable(line));
                QVERIFY(it.value().count('\n') < capacity);
                // The tag is never cut: whole, or its last word (the hardware) whole, without
                // the ellipsis that read as a cut label ("[..., A100]").
                const QString tag = capacity == 1 ? it.value().section(QStringLiteral(" ["), -1)
                                                  : it.value().section('\n', -1);
                QVERIFY2(!tag.contains(QChar(0x2026)), qPrintable(it.value()));
            }
        }
        // Labels that fit are left alone.
        QMap<double, QString> small{{0, "DLRM [H200]"}, {1, "BERT [H200]"}};
        QCOMPARE(fitCategoryLabels(small, tm, 200.0, 1), small);
    }

private:
    void check(const QString& pdf) {
        QVERIFY2(QFile::exists(pdf), qPrintable(pdf));
        const QStringList problems = layoutProblems(pdf);
        QVERIFY2(problems.isEmpty(), qPrintable(pdf + ":\n  " + problems.join("\n  ")));
        // Rendered as a reader sees it; kept for looking at with REACH_UI_DUMP=DIR.
        int status = -1;
        const QString png = pdf.chopped(4);
        runTool("pdftoppm", {"-png", "-r", "150", "-singlefile", pdf, png}, &status);
        QCOMPARE(status, 0);
        QVERIFY(QFile::exists(png + ".png"));
        if (qEnvironmentVariableIsSet("REACH_UI_DUMP")) {
            const QString dump = qEnvironmentVariable("REACH_UI_DUMP");
            QDir().mkpath(dump);
            QFile::remove(dump + "/" + QFileInfo(png).fileName() + ".png");
            QFile::copy(png + ".png", dump + "/" + QFileInfo(png).fileName() + ".png");
        }
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestFigureLayout)
#include "figurelayout_test.moc"
