// The speedup view: what is drawn equals the RecordsModel (points, bins, ECDF steps, legend
// statistics, median lines, suspicious marks), a click on a point selects its record, the model
// passes QAbstractItemModelTester, and Re-verify runs the real VerifyQueue against a stand-in
// verifier process and writes the verdict back into the model and the plot.
#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>
#include "core/records/recordstats.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"
#include "tests/ui/support/plotstestdata.h"
#include "ui/verify/gpustate.h"
#include "ui/views/speedupview.h"

using namespace reach;

namespace {

std::vector<double> plottedSpeedups(const RecordsModel& m, int set) {
    std::vector<double> v;
    for (const EvalRecord& r : m.sets()[size_t(set)].records) {
        if (r.correct && r.speedup)
            v.push_back(*r.speedup);
    }
    std::sort(v.begin(), v.end());
    return v;
}

QCPGraph* graphOf(const SpeedupView& view, int set) {
    return qobject_cast<QCPGraph*>(view.plotBuilder().setPlottable(set));
}

std::vector<double> keysOf(const QCPGraph* g) {
    std::vector<double> k;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        k.push_back(it->key);
    return k;
}

// A drawn tick label's horizontal extent in the plot's pixels.
struct TickBox {
    QString label;
    double left, right;
};

// The boxes of the labels at `keys` on the x axis, as QCustomPlot draws them: centred on the
// tick, as wide as the text in the axis's tick-label font.
std::vector<TickBox> tickBoxes(const QCPAxis& x, const QVector<double>& keys,
                               const QVector<QString>& labels) {
    const QFontMetricsF fm(x.tickLabelFont());
    std::vector<TickBox> boxes;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const double centre = x.coordToPixel(keys[i]);
        const double half = fm.horizontalAdvance(labels[i]) / 2;
        boxes.push_back({labels[i], centre - half, centre + half});
    }
    return boxes;
}

// The first pair of neighbours less than `gap` pixels apart (touching or overlapping with no
// gap), as text; empty when none is.
QString firstOverlap(const std::vector<TickBox>& boxes, double gap = 0) {
    for (size_t i = 1; i < boxes.size(); ++i) {
        if (boxes[i].left <= boxes[i - 1].right + gap) {
            return QStringLiteral("'%1' [%2, %3] runs into '%4' [%5, %6]")
                .arg(boxes[i - 1].label)
                .arg(boxes[i - 1].left)
                .arg(boxes[i - 1].right)
                .arg(boxes[i].label)
                .arg(boxes[i].left)
                .arg(boxes[i].right);
        }
    }
    return {};
}

}  // namespace

class SpeedupViewTest : public QObject {
    Q_OBJECT
private slots:
    void init();
    void modelPassesItemModelTester();
    void stripPointsAndLegendEqualTheModel();
    void histogramBinsCountTheModelsRecords();
    void ecdfStepsAreTheCumulativeShares();
    void suspiciousMarksAreTheFlaggedRecords();
    void clickingAPointSelectsItsRecord();
    void clickingAHistogramBinSelectsItsRecords();
    void reverifyStoresVerdictsFromTheVerifier();
    void withoutGpuTheActionsSaySoAndAreDisabled();
    void hoverTooltipNamesTheRecord();
    void tableSelectionIsRingedInThePlot();
    void winThresholdChangesTheLegend();
    void emptyStateSaysWhatToLoad();
    void onScreenTickLabelsNeverRunTogether();
    void legendLinesKeepTheirDescenders();

private:
    std::unique_ptr<SpeedupView> m_view;
};

void SpeedupViewTest::init() {
    QSettings().remove(QStringLiteral("verify/approvedSources"));
    m_view = std::make_unique<SpeedupView>();
    m_view->model()->setSuspicionOptions(plotstest::suspicionOptions());
    m_view->model()->setSets(plotstest::loadSets());
    m_view->resize(900, 700);
}

void SpeedupViewTest::modelPassesItemModelTester() {
    RecordsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSuspicionOptions(plotstest::suspicionOptions());
    model.setSets(plotstest::loadSets());
    QVERIFY(model.rowCount() > 10);
    int total = 0;
    for (const RecordSet& s : model.sets())
        total += int(s.records.size());
    QCOMPARE(model.rowCount(), total);
    for (int row = 0; row < model.rowCount(); ++row)
        QCOMPARE(model.rowFor(model.refForRow(row)), row);
    model.setVerification({0, 0}, Verification::Failed, {"fail", "written_fraction 0.003"});
    QCOMPARE(model.record({0, 0}).verification, Verification::Failed);
    QCOMPARE(model.data(model.index(0, RecordsModel::VerificationColumn)).toString(),
             QStringLiteral("failed"));
    QVERIFY(model.isSuspicious({0, 0}));  // refuted by the verifier
    model.setSets({});
    QCOMPARE(model.rowCount(), 0);
}

void SpeedupViewTest::stripPointsAndLegendEqualTheModel() {
    m_view->setMode(SpeedupPlot::Mode::Strip);
    const RecordsModel& m = *m_view->model();
    const int nSets = int(m.sets().size());
    QCOMPARE(nSets, 3);
    for (int s = 0; s < nSets; ++s) {
        QCPGraph* g = graphOf(*m_view, s);
        QVERIFY(g);
        const std::vector<double> expected = plottedSpeedups(m, s);
        QVERIFY(!expected.empty());
        QCOMPARE(keysOf(g), expected);
        const double row = nSets - 1 - s;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
            QVERIFY(std::abs(it->value - row) <= 0.25);
        }
        // The legend's statistics are core's, per problem over the best sample, on the set
        // summary's basis (verified winners once Reach has judged a record).
        StatsOptions options;
        options.basis = defaultBasis(m.sets()[size_t(s)].records);
        const std::vector<RecordStats> st =
            computeGroupedStats(m.sets()[size_t(s)].records, GroupBy::None, options);
        QCOMPARE(m.stats(s).winners, st[0].winners);
        QCOMPARE(m.stats(s).denominator, st[0].denominator);
        QVERIFY(g->name().contains(
            QStringLiteral("(%1/%2)").arg(st[0].winners).arg(st[0].denominator)));
        if (st[0].medianSpeedup) {
            QVERIFY(g->name().contains(QString::number(*st[0].medianSpeedup, 'f', 3)));
        }
    }
    // 1x line and one median line per set that has winners.
    std::vector<double> lines;
    for (int i = 0; i < m_view->plot()->itemCount(); ++i) {
        if (auto* l = qobject_cast<QCPItemStraightLine*>(m_view->plot()->item(i))) {
            lines.push_back(l->point1->coords().x());
        }
    }
    QVERIFY(std::count(lines.begin(), lines.end(), 1.0) >= 1);
    for (int s = 0; s < nSets; ++s) {
        if (const auto med = m.stats(s).medianSpeedup) {
            QVERIFY(std::find(lines.begin(), lines.end(), *med) != lines.end());
        }
    }
    QCOMPARE(m_view->plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
}

void SpeedupViewTest::histogramBinsCountTheModelsRecords() {
    m_view->setMode(SpeedupPlot::Mode::Histogram);
    const RecordsModel& m = *m_view->model();
    for (int s = 0; s < int(m.sets().size()); ++s) {
        QCPGraph* g = graphOf(*m_view, s);
        const std::vector<double> speedups = plottedSpeedups(m, s);
        std::vector<double> edges = keysOf(g);
        double sum = 0;
        for (size_t b = 0; b + 1 < edges.size(); ++b) {
            const double count = (g->data()->constBegin() + int(b))->value;
            const auto n = std::count_if(speedups.begin(), speedups.end(), [&](double v) {
                return v >= edges[b] * (1 - 1e-12) && v < edges[b + 1] * (1 - 1e-12);
            });
            QCOMPARE(count, double(n));
            QCOMPARE(std::log2(edges[b + 1] / edges[b]), SpeedupPlot::kBinOctaves);
            sum += count;
        }
        QCOMPARE(sum, double(speedups.size()));
    }
}

void SpeedupViewTest::ecdfStepsAreTheCumulativeShares() {
    m_view->setMode(SpeedupPlot::Mode::Ecdf);
    const RecordsModel& m = *m_view->model();
    for (int s = 0; s < int(m.sets().size()); ++s) {
        QCPGraph* g = graphOf(*m_view, s);
        const std::vector<double> speedups = plottedSpeedups(m, s);
        QCOMPARE(keysOf(g), speedups);
        int i = 0;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it, ++i) {
            QCOMPARE(it->value, double(i + 1) / double(speedups.size()));
        }
    }
}

void SpeedupViewTest::suspiciousMarksAreTheFlaggedRecords() {
    m_view->setMode(SpeedupPlot::Mode::Strip);
    const RecordsModel& m = *m_view->model();
    std::vector<double> expected;
    for (RecordRef r : m.suspiciousRecords()) {
        const EvalRecord& rec = m.record(r);
        if (rec.correct && rec.speedup)
            expected.push_back(*rec.speedup);
    }
    std::sort(expected.begin(), expected.end());
    // The test data holds a degenerate-reference softmax, a >10x speedup and a refuted record.
    QVERIFY(expected.size() >= 3);
    QVERIFY(expected.back() > 10.0);
    auto* marks = qobject_cast<QCPGraph*>(m_view->plotBuilder().suspiciousPlottable());
    QVERIFY(marks);
    QCOMPARE(keysOf(marks), expected);
    for (int i = 0; i < marks->dataCount(); ++i) {
        const auto refs = m_view->plotBuilder().recordsAt(marks, i);
        QCOMPARE(refs.size(), size_t(1));
        QVERIFY(m.isSuspicious(refs[0]));
    }
}

void SpeedupViewTest::clickingAPointSelectsItsRecord() {
    m_view->setMode(SpeedupPlot::Mode::Strip);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    QCustomPlot* plot = m_view->plot();
    plot->replot();
    // The fastest KernelBench run record that is not marked (a mark sits on top of its point).
    const int set = 2;
    QCPGraph* g = graphOf(*m_view, set);
    int index = -1;
    for (int i = g->dataCount() - 1; i >= 0; --i) {
        const RecordRef r = m_view->plotBuilder().recordsAt(g, i).at(0);
        if (!m_view->model()->isSuspicious(r)) {
            index = i;
            break;
        }
    }
    QVERIFY(index >= 0);
    const RecordRef expected = m_view->plotBuilder().recordsAt(g, index).at(0);
    const auto point = g->data()->at(index);
    const QPoint pos(qRound(plot->xAxis->coordToPixel(point->key)),
                     qRound(plot->yAxis->coordToPixel(point->value)));
    QSignalSpy selected(m_view.get(), &SpeedupView::recordsSelected);
    QTest::mouseClick(plot, Qt::LeftButton, {}, pos);
    QCOMPARE(selected.count(), 1);
    const std::vector<RecordRef> sel = m_view->selectedRecords();
    QCOMPARE(sel.size(), size_t(1));
    QCOMPARE(sel[0], expected);
    // The selected table row shows that record.
    const QModelIndex current = m_view->table()->selectionModel()->selectedRows().at(0);
    QCOMPARE(current.siblingAtColumn(RecordsModel::SpeedupColumn).data().toString(),
             QStringLiteral("%1x").arg(*m_view->model()->record(expected).speedup, 0, 'f', 3));
}

void SpeedupViewTest::clickingAHistogramBinSelectsItsRecords() {
    m_view->setMode(SpeedupPlot::Mode::Histogram);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    QCustomPlot* plot = m_view->plot();
    plot->replot();
    const int set = 0;  // model-a
    QCPGraph* g = graphOf(*m_view, set);
    // The tallest bin; click inside it, halfway up, away from its edges.
    int bin = 0;
    for (int i = 0; i + 1 < g->dataCount(); ++i) {
        if (g->data()->at(i)->value > g->data()->at(bin)->value)
            bin = i;
    }
    const double lo = g->data()->at(bin)->key, hi = g->data()->at(bin + 1)->key;
    const double x = (plot->xAxis->coordToPixel(lo) + plot->xAxis->coordToPixel(hi)) / 2;
    const double y = plot->yAxis->coordToPixel(g->data()->at(bin)->value);
    QTest::mouseClick(plot, Qt::LeftButton, {}, QPoint(qRound(x), qRound(y)));
    std::vector<RecordRef> sel = m_view->selectedRecords();
    std::vector<RecordRef> expected = m_view->plotBuilder().recordsAt(g, bin);
    QCOMPARE(double(expected.size()), g->data()->at(bin)->value);
    auto order = [](RecordRef a, RecordRef b) { return a.record < b.record; };
    std::sort(sel.begin(), sel.end(), order);
    std::sort(expected.begin(), expected.end(), order);
    QVERIFY(sel == expected);
}

void SpeedupViewTest::reverifyStoresVerdictsFromTheVerifier() {
    // Records whose candidates and problem files exist on disk, as a user's folder would hold them.
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("problems"));
    std::vector<RecordSet> sets = plotstest::loadSets();
    RecordSet& set = sets[0];  // model-a
    const char* names[] = {"pass", "crash", "fail"};
    for (size_t i = 0; i < set.records.size(); ++i) {
        EvalRecord& r = set.records[i];
        r.source = dir.filePath("records.jsonl").toStdString();
        r.artifactPath = std::string("kernels/") + names[i % 3] + "_" + std::to_string(i) + ".cu";
        QVERIFY(QDir(dir.path()).mkpath("kernels"));
        QFile c(dir.filePath(QString::fromStdString(r.artifactPath)));
        QVERIFY(c.open(QIODevice::WriteOnly));
        QFile p(dir.filePath("problems/" + QString::fromStdString(r.problemId) + ".json"));
        QVERIFY(p.open(QIODevice::WriteOnly));
        p.write(R"({"id":"x","op":"softmax","dtype":"bf16","shapes":{"x":[4,8]},"seed":1})");
    }
    // The records also live in a project, where the verdicts must land.
    const QString projectPath = dir.filePath("study.reach");
    int64_t setId = 0;
    {
        ProjectStore store = ProjectStore::open(projectPath.toStdString());
        setId = importRecordSet(store, "model-a", "records.jsonl", "reach-jsonl", sets[0].records);
    }
    m_view->model()->setSets(std::move(sets));
    m_view->setProjectPath(projectPath);

    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
    queue.setTimeoutMs(20000);
    m_view->setVerifyQueue(&queue);
    QSignalSpy stored(m_view.get(), &SpeedupView::verificationFinished);
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    const std::vector<RecordRef> refs = {{0, 0}, {0, 1}, {0, 2}};
    // Before the first run of a source the user sees which files will run (issue 14): refused,
    // nothing is queued; accepted, the three candidates run.
    QStringList asked;
    bool answer = false;
    m_view->setRunConsentAsker([&](const QStringList& files) {
        asked = files;
        return answer;
    });
    QCOMPARE(m_view->reverify(refs), 0);
    QCOMPARE(asked.size(), 3);
    for (const QString& f : asked)
        QVERIFY2(f.startsWith(dir.path()) && f.endsWith(".cu"), qPrintable(f));
    answer = true;
    asked.clear();
    QCOMPARE(m_view->reverify(refs), 3);
    QCOMPARE(asked.size(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);
    QCOMPARE(stored.count(), 3);
    const RecordsModel& m = *m_view->model();
    QCOMPARE(m.record({0, 0}).verification, Verification::Passed);
    QCOMPARE(m.record({0, 1}).verification, Verification::Failed);
    QCOMPARE(m.record({0, 1}).verificationReasons.at(0), std::string("crashed"));
    QCOMPARE(m.record({0, 2}).verification, Verification::Failed);
    QCOMPARE(m.record({0, 2}).verificationReasons.at(0), std::string("fail"));
    QCOMPARE(m.record({0, 2}).verificationReasons.at(1),
             std::string("written_fraction 0.003 below 1.0"));
    // Stored in the project: one row per run with the verifier's JSON, and the records' status.
    const std::vector<StoredVerification> stored3 =
        loadVerifications(ProjectStore::open(projectPath.toStdString()));
    QCOMPARE(stored3.size(), size_t(3));
    QCOMPARE(stored3[0].verdict, std::string("pass"));
    QCOMPARE(stored3[1].verdict, std::string("crashed"));
    QVERIFY(stored3[1].json.empty());
    QCOMPARE(stored3[2].verdict, std::string("fail"));
    QCOMPARE(nlohmann::json::parse(stored3[2].json)["verdict"], "fail");
    QCOMPARE(stored3[2].problemId, m.record({0, 2}).problemId);
    {
        ProjectStore store = ProjectStore::open(projectPath.toStdString());
        const std::vector<EvalRecord> saved = loadRecordSet(store, setId);
        QCOMPARE(saved.at(0).verification, Verification::Passed);
        QCOMPARE(saved.at(1).verification, Verification::Failed);
        QCOMPARE(saved.at(2).verification, Verification::Failed);
        QCOMPARE(saved.at(2).verificationReasons, m.record({0, 2}).verificationReasons);
    }
    // A refuted, correct-and-timed record is now marked in the plot.
    const EvalRecord& refuted = m.record({0, 2});
    if (refuted.correct && refuted.speedup) {
        auto* marks = qobject_cast<QCPGraph*>(m_view->plotBuilder().suspiciousPlottable());
        QVERIFY(marks);
        bool found = false;
        for (int i = 0; i < marks->dataCount(); ++i) {
            const auto r = m_view->plotBuilder().recordsAt(marks, i);
            found = found || (r.size() == 1 && r[0] == RecordRef{0, 2});
        }
        QVERIFY(found);
    }
    // Approved sources are not asked about again; an edited one is.
    asked.clear();
    QCOMPARE(m_view->reverify({{0, 0}}), 1);
    QVERIFY(asked.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 2, 20000);
    {
        QFile edited(dir.filePath(QString::fromStdString(m.record({0, 1}).artifactPath)));
        QVERIFY(edited.open(QIODevice::Append));
        edited.write("// edited\n");
    }
    answer = false;
    QCOMPARE(m_view->reverify({{0, 0}, {0, 1}}), 0);
    QCOMPARE(asked.size(), 1);
    QVERIFY(asked.front().endsWith(QString::fromStdString(m.record({0, 1}).artifactPath)));
}

void SpeedupViewTest::withoutGpuTheActionsSaySoAndAreDisabled() {
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
    m_view->setVerifyQueue(&queue);
    m_view->selectRecords({{0, 0}});
    QVERIFY(m_view->reverifyAction()->isEnabled());
    QVERIFY(m_view->reverifySuspiciousAction()->isEnabled());
    queue.setGpuAvailable(false, QStringLiteral("no CUDA device"));
    QVERIFY(!m_view->reverifyAction()->isEnabled());
    QVERIFY(!m_view->reverifySuspiciousAction()->isEnabled());
    QVERIFY(m_view->reverifyAction()->toolTip().contains("no CUDA device"));
    // A short word in the bar that never widens it; the reason in its tooltip.
    auto* label = m_view->findChild<QLabel*>(QStringLiteral("verificationUnavailable"));
    QVERIFY(label);
    QVERIFY(label->text().startsWith(QStringLiteral("Verification unavailable")));
    QVERIFY(label->toolTip().contains("no CUDA device"));
    QCOMPARE(label->sizePolicy().horizontalPolicy(), QSizePolicy::Ignored);
    // What the main window passes on for the CUDA runtime's own words: a sentence with what to do.
    const QString raw = QStringLiteral(
        "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version");
    const QString advice = noGpuAdvice(raw);
    QVERIFY2(advice.startsWith(QStringLiteral("No NVIDIA GPU")), qPrintable(advice));
    QVERIFY(advice.contains(QStringLiteral("Profiles, records and figures work as usual.")));
    QVERIFY(advice.endsWith(QStringLiteral("(") + raw + QStringLiteral(")")));
    QVERIFY(noGpuAdvice(QStringLiteral("reach-verify not found")).contains("REACH_VERIFY"));
    QCOMPARE(m_view->reverify({{0, 0}}), 0);

    // A verifier that reports no_gpu switches the actions off by itself.
    queue.setGpuAvailable(true);
    QVERIFY(m_view->reverifyAction()->isEnabled());
    VerifyJob job;
    job.recordKey = RecordsModel::keyFor({0, 0});
    job.problemPath = "p.json";
    job.candidatePath = "nogpu.cu";
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    queue.enqueue({job});
    QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 10000);
    QVERIFY(!queue.gpuAvailable());
    QVERIFY(!m_view->reverifyAction()->isEnabled());
    QCOMPARE(m_view->model()->record({0, 0}).verification, Verification::Passed);  // unchanged
}

// Pixel position of data point `index` of a graph.
static QPoint pixelOf(QCustomPlot* plot, QCPGraph* g, int index) {
    const auto point = g->data()->at(index);
    return QPoint(qRound(plot->xAxis->coordToPixel(point->key)),
                  qRound(plot->yAxis->coordToPixel(point->value)));
}

void SpeedupViewTest::hoverTooltipNamesTheRecord() {
    m_view->setMode(SpeedupPlot::Mode::Strip);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    QCustomPlot* plot = m_view->plot();
    plot->replot();
    QCPGraph* g = graphOf(*m_view, 0);
    // A point without a suspicious mark on top.
    int index = -1;
    for (int i = 0; i < g->dataCount() && index < 0; ++i) {
        if (!m_view->model()->isSuspicious(m_view->plotBuilder().recordsAt(g, i).at(0)))
            index = i;
    }
    QVERIFY(index >= 0);
    const RecordRef ref = m_view->plotBuilder().recordsAt(g, index).at(0);
    const EvalRecord& r = m_view->model()->record(ref);
    const QString tip = m_view->tooltipAt(pixelOf(plot, g, index));
    QVERIFY2(tip.startsWith(QString::fromStdString(r.problemName)), qPrintable(tip));
    QVERIFY2(tip.contains(QString::fromStdString(r.model)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("speedup %1×").arg(*r.speedup, 0, 'f', 3)),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("verification: ")), qPrintable(tip));
    QVERIFY(tip.contains(r.correct && *r.speedup > 1.0 ? QStringLiteral("a win")
                                                       : QStringLiteral("not a win")));
    // A suspicious record's tooltip lists its flags.
    auto* marks = qobject_cast<QCPGraph*>(m_view->plotBuilder().suspiciousPlottable());
    QVERIFY(marks && marks->dataCount() > 0);
    const QString flagged = m_view->tooltipAt(pixelOf(plot, marks, 0));
    QVERIFY2(flagged.contains(QStringLiteral("flag: ")), qPrintable(flagged));
    // Far from every point: nothing.
    QVERIFY(m_view->tooltipAt(QPoint(2, 2)).isEmpty());
}

void SpeedupViewTest::tableSelectionIsRingedInThePlot() {
    m_view->setMode(SpeedupPlot::Mode::Strip);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    QCPGraph* g = graphOf(*m_view, 1);
    const RecordRef ref = m_view->plotBuilder().recordsAt(g, 0).at(0);
    // Table -> plot: selecting the row rings the record's point.
    m_view->selectRecords({ref});
    QCPGraph* ring = m_view->selectionMarker();
    QVERIFY(ring);
    QCOMPARE(ring->dataCount(), 1);
    QCOMPARE(ring->data()->at(0)->key, g->data()->at(0)->key);
    QCOMPARE(ring->data()->at(0)->value, g->data()->at(0)->value);
    // The ring survives a rebuild (a mode change and back).
    m_view->setMode(SpeedupPlot::Mode::Ecdf);
    m_view->setMode(SpeedupPlot::Mode::Strip);
    QCOMPARE(m_view->selectionMarker()->dataCount(), 1);
    // Plot -> table: clicking the ringed point selects its row (covered for unringed points by
    // clickingAPointSelectsItsRecord).
    m_view->plot()->replot();
    QTest::mouseClick(m_view->plot(), Qt::LeftButton, {}, pixelOf(m_view->plot(), g, 0));
    QCOMPARE(m_view->selectedRecords().size(), size_t(1));
    QCOMPARE(m_view->selectedRecords().front(), ref);
    m_view->selectRecords({});
    QCOMPARE(m_view->selectionMarker()->dataCount(), 0);
}

void SpeedupViewTest::winThresholdChangesTheLegend() {
    m_view->setMode(SpeedupPlot::Mode::Strip);
    const RecordsModel& m = *m_view->model();
    const int before = m.stats(0).winners;
    QVERIFY(before > 0);
    m_view->winThresholdBox()->setValue(1.5);
    // The statistics are core's at that threshold ...
    StatsOptions options;
    options.basis = defaultBasis(m.sets()[0].records);
    options.winThreshold = 1.5;
    const RecordStats expected =
        computeGroupedStats(m.sets()[0].records, GroupBy::None, options).front();
    QCOMPARE(m.stats(0).winners, expected.winners);
    QVERIFY(expected.winners < before);
    // ... and the legend says what a win is.
    const QString legend = graphOf(*m_view, 0)->name();
    QVERIFY2(legend.contains(QStringLiteral("above 1.5×")), qPrintable(legend));
    QVERIFY(legend.contains(QStringLiteral("(%1/").arg(expected.winners)));
    m_view->winThresholdBox()->setValue(1.0);
}

void SpeedupViewTest::emptyStateSaysWhatToLoad() {
    QVERIFY(m_view->emptyText().isEmpty());
    m_view->model()->setSets({});
    QVERIFY2(m_view->emptyText().contains(QStringLiteral("No evaluation records")),
             qPrintable(m_view->emptyText()));
    QVERIFY(m_view->emptyText().contains(QStringLiteral("Import")));
    // The text has the plot's width to itself (an empty legend once squeezed the plot to 40 px
    // and cut it): the axis rect spans most of the view, and the text fits inside it.
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    QCustomPlot* plot = m_view->plot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const QRect rect = plot->axisRect()->rect();
    QVERIFY2(rect.width() > plot->width() / 2, qPrintable(QString::number(rect.width())));
    const QFontMetrics fm(QApplication::font());
    for (const QString& line : m_view->emptyText().split('\n'))
        QVERIFY2(fm.horizontalAdvance(line) < rect.width(), qPrintable(line));
    m_view->model()->setSets(plotstest::loadSets());
    QVERIFY(m_view->emptyText().isEmpty());
    // Records again: the legend is back above the plot.
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot->legend->visible());
    QCOMPARE(plot->legend->layout(), static_cast<QCPLayout*>(plot->plotLayout()));
    QVERIFY(plot->legend->itemCount() > 0);
}

// What the x axis of an on-screen plot draws after the window's own resize and queued replot:
// fails the test when two drawn labels touch; `needed` says whether every power of two in
// range would have run together at this width.
size_t checkDrawnTicks(QCustomPlot& plot, bool* needed) {
    for (int i = 0; i < 3; ++i)  // the resize, then the replot it queued
        QCoreApplication::processEvents();
    QCPAxis* x = plot.xAxis;
    const std::vector<TickBox> boxes = tickBoxes(*x, x->tickVector(), x->tickVectorLabels());
    const QString overlap = firstOverlap(boxes);
    if (!overlap.isEmpty()) {
        QTest::qFail(qPrintable(QStringLiteral("at %1 px: ").arg(plot.width()) + overlap), __FILE__,
                     __LINE__);
        return 0;
    }
    // 1x, "no change", is always labelled.
    if (std::none_of(boxes.begin(), boxes.end(),
                     [](const TickBox& b) { return b.label == QStringLiteral("1×"); })) {
        QTest::qFail("1× is not labelled", __FILE__, __LINE__);
        return 0;
    }
    auto ticker = x->ticker().dynamicCast<QCPAxisTickerText>();
    QVector<double> keys;
    QVector<QString> labels;
    for (auto it = ticker->ticks().cbegin(); it != ticker->ticks().cend(); ++it) {
        if (x->range().contains(it.key())) {
            keys << it.key();
            labels << it.value();
        }
    }
    const std::vector<TickBox> all = tickBoxes(*x, keys, labels);
    *needed = !firstOverlap(all).isEmpty();
    // Where every label would keep two digits' width from the next, none may be dropped.
    const double roomy = 2 * QFontMetricsF(x->tickLabelFont()).horizontalAdvance(QLatin1Char('0'));
    if (firstOverlap(all, roomy).isEmpty() && boxes.size() != size_t(keys.size())) {
        QTest::qFail("labels were dropped that had room", __FILE__, __LINE__);
        return 0;
    }
    return boxes.size();
}

// The x axis thins its powers of two to the plot's width with the same ticker the export uses
// (SpacedTextTicker), following every resize: the drawn labels never touch, at the view's
// narrowest and at a wide window, and in a plot narrowed until all its labels would have run
// together.
void SpeedupViewTest::onScreenTickLabelsNeverRunTogether() {
    m_view->setMode(SpeedupPlot::Mode::Strip);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    const int narrowest = m_view->minimumSizeHint().width();
    bool needed = false;
    for (const int width : {1600, narrowest, 1600}) {
        m_view->resize(width, 700);
        QVERIFY(checkDrawnTicks(*m_view->plot(), &needed) >= 2);
        if (QTest::currentTestFailed())
            return;
    }

    // The same figure in a narrow plot of its own.
    QCustomPlot plot;
    SpeedupPlot builder;
    builder.build(plot, *m_view->model(), SpeedupPlot::Mode::Strip);
    plot.resize(1600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.resize(1600, 400);
    const size_t wide = checkDrawnTicks(plot, &needed);
    QVERIFY(!needed && wide >= 2);
    // Narrower and narrower, down to where every label would have run together (and back).
    int thinnedAt = 0;
    for (const int width : {480, 360, 280, 220, 180, 1600, 220}) {
        plot.resize(width, 400);
        const size_t n = checkDrawnTicks(plot, &needed);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(plot.width(), width);
        QVERIFY(n >= 2);
        if (needed) {
            QVERIFY(n < wide);
            thinnedAt = width;
        }
    }
    QVERIFY2(thinnedAt > 0, "no width needed thinning");
}

// Defect 16 of issue 25: the legend's lines (file names with "_", "g", "y") were cut at the
// bottom. Each entry is at least a line of its font high, inside the widget, and no entry
// overlaps the next, in every mode and at the narrowest width the view allows.
void SpeedupViewTest::legendLinesKeepTheirDescenders() {
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    for (SpeedupPlot::Mode mode :
         {SpeedupPlot::Mode::Histogram, SpeedupPlot::Mode::Strip, SpeedupPlot::Mode::Ecdf}) {
        m_view->setMode(mode);
        for (const int width : {900, m_view->minimumSizeHint().width()}) {
            m_view->resize(width, 700);
            QCustomPlot* plot = m_view->plot();
            plot->replot(QCustomPlot::rpImmediateRefresh);
            QCPLegend* legend = plot->legend;
            QVERIFY(legend->visible());
            QVERIFY(legend->itemCount() >= 2);
            QRect previous;
            for (int i = 0; i < legend->itemCount(); ++i) {
                QCPAbstractLegendItem* item = legend->item(i);
                const QRect r = item->outerRect();
                const QFontMetrics fm(item->font());
                const QString where = QStringLiteral("mode %1, width %2, entry %3: %4x%5 at %6")
                                          .arg(int(mode))
                                          .arg(width)
                                          .arg(i)
                                          .arg(r.width())
                                          .arg(r.height())
                                          .arg(r.top());
                QVERIFY2(r.height() >= fm.height(), qPrintable(where));
                QVERIFY2(plot->rect().contains(r), qPrintable(where));
                if (!previous.isNull() && previous.left() == r.left())
                    QVERIFY2(r.top() >= previous.bottom(), qPrintable(where));
                previous = r;
            }
        }
    }
}

QTEST_MAIN(SpeedupViewTest)
#include "speedupview_test.moc"
