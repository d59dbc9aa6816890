// The comparison dialog on the bundled sample: ResNet-50 eager (A) against compiled (B). Its
// tables hold core's diffBreakdowns rows for the same breakdowns, the pickers follow the
// session, and a re-classification recomputes it. Its projection check shows core's
// checkCandidates numbers (those of `reach-cli diff --candidate`) on both bases.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QTableWidget>
#include <QTest>
#include <cmath>

#include "core/analysis/breakdown.h"
#include "core/analysis/profilediff.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/comparisondialog.h"
#include "ui/session.h"

using namespace reach;

namespace {

int rowNamed(const Session& s, const std::string& name) {
    const auto& w = s.workloads();
    for (size_t i = 0; i < w.size(); ++i) {
        if (w[i].name == name && w[i].breakdown)
            return int(i);
    }
    return -1;
}

void compareRows(const ProfileDiffModel& model, const std::vector<DiffRow>& rows) {
    QCOMPARE(model.rowCount(), int(rows.size()));
    for (int r = 0; r < model.rowCount(); ++r) {
        QCOMPARE(model.row(r).key, rows[size_t(r)].key);
        QCOMPARE(model.row(r).op, rows[size_t(r)].op);
        QCOMPARE(model.data(model.index(r, ProfileDiffModel::AMs), ProfileDiffModel::ValueRole)
                     .toDouble(),
                 rows[size_t(r)].aUs / 1000.0);
        QCOMPARE(model.data(model.index(r, ProfileDiffModel::DeltaMs), ProfileDiffModel::ValueRole)
                     .toDouble(),
                 rows[size_t(r)].deltaUs() / 1000.0);
        QCOMPARE(
            model.data(model.index(r, ProfileDiffModel::DeltaShare), ProfileDiffModel::ValueRole)
                .toDouble(),
            rows[size_t(r)].deltaShare());
    }
}

// A cell of the projection table: its raw number, and that its text is the number formatted.
double cell(const ComparisonDialog& dialog, int row, int column) {
    const QTableWidgetItem* item = dialog.projectionTable()->item(row, column);
    return item ? item->data(Qt::UserRole).toDouble() : std::nan("");
}

QString cellText(const ComparisonDialog& dialog, int row, int column) {
    const QTableWidgetItem* item = dialog.projectionTable()->item(row, column);
    return item ? item->text() : QString();
}

QString percentText(double share) {
    return QString::number(100.0 * share, 'f', 2) + QStringLiteral(" %");
}

}  // namespace

class TestComparisonDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        m_session = new Session(this);
        QString error;
        QVERIFY2(m_session->openDefault(&error), qPrintable(error));
        QVERIFY(test::waitIdle(*m_session));
    }

    void pickersListMeasuredWorkloadsOnly() {
        ComparisonDialog dialog(m_session);
        int measured = 0;
        for (const ProjectWorkload& w : m_session->workloads())
            measured += w.breakdown ? 1 : 0;
        QVERIFY(measured >= 2);
        QCOMPARE(dialog.pickerA()->count(), measured);
        QCOMPARE(dialog.pickerB()->count(), measured);
        // Two different workloads are compared from the start: the two most alike, the sample's
        // ResNet-50 eager and compiled (issue 40: it opened on whichever two came first).
        QVERIFY(dialog.diff().has_value());
        QVERIFY(dialog.pickerA()->currentIndex() != dialog.pickerB()->currentIndex());
        QCOMPARE(dialog.pickerA()->currentText(), QStringLiteral("resnet50_inference"));
        QCOMPARE(dialog.pickerB()->currentText(), QStringLiteral("resnet50_inference_compiled"));
        // A published row (shares only) cannot be picked.
        int published = -1;
        for (size_t i = 0; i < m_session->workloads().size(); ++i) {
            if (!m_session->workloads()[i].breakdown)
                published = int(i);
        }
        QVERIFY(published >= 0);
        QVERIFY(!dialog.compare(published, 0));
    }

    void tablesAreCoresDiffOfTheTwoBreakdowns() {
        const int a = rowNamed(*m_session, "resnet50_inference");
        const int b = rowNamed(*m_session, "resnet50_inference_compiled");
        QVERIFY2(a >= 0 && b >= 0, "the sample holds the ResNet-50 eager and compiled profiles");
        ComparisonDialog dialog(m_session);
        QAbstractItemModelTester tester(dialog.model(ProfileDiffModel::List::Kernels),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(dialog.compare(a, b));
        const ProfileDiff expected = diffBreakdowns(*m_session->workloads()[size_t(a)].breakdown,
                                                    *m_session->workloads()[size_t(b)].breakdown);
        const ProfileDiff& shown = *dialog.diff();
        QCOMPARE(shown.a.gpuTimeUs, expected.a.gpuTimeUs);
        QCOMPARE(shown.b.gpuTimeUs, expected.b.gpuTimeUs);
        QVERIFY(shown.gpuDeltaUs() < 0);  // compiled takes less GPU time
        compareRows(*dialog.model(ProfileDiffModel::List::Categories), expected.categories);
        compareRows(*dialog.model(ProfileDiffModel::List::Families), expected.families);
        compareRows(*dialog.model(ProfileDiffModel::List::Kernels), expected.kernels);
        compareRows(*dialog.model(ProfileDiffModel::List::OnlyA), expected.onlyA);
        compareRows(*dialog.model(ProfileDiffModel::List::OnlyB), expected.onlyB);
        QVERIFY(!expected.kernels.empty() && !expected.onlyA.empty() && !expected.onlyB.empty());

        // Every kernel of either side is in one row: the rows' changes sum to the GPU time's.
        double sum = 0;
        for (auto list : {ProfileDiffModel::List::Kernels, ProfileDiffModel::List::OnlyA,
                          ProfileDiffModel::List::OnlyB}) {
            const ProfileDiffModel& m = *dialog.model(list);
            for (int r = 0; r < m.rowCount(); ++r)
                sum += m.row(r).deltaUs();
        }
        QVERIFY(std::abs(sum - shown.gpuDeltaUs()) < 1e-6);

        // The summary says the totals and the busy share change.
        const QString text = dialog.summary();
        QVERIFY2(text.contains(QString::number(expected.a.gpuTimeUs / 1000.0, 'f', 3)),
                 qPrintable(text));
        QVERIFY2(text.contains(QString::number(expected.b.gpuTimeUs / 1000.0, 'f', 3)),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("%1 in both").arg(expected.kernels.size())),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral(" pp")), qPrintable(text));

        // Kernel rows: display names on show, every full name of either side on hover.
        const ProfileDiffModel& kernels = *dialog.model(ProfileDiffModel::List::Kernels);
        const QString tip =
            kernels.data(kernels.index(0, ProfileDiffModel::Key), Qt::ToolTipRole).toString();
        for (const std::string& n : kernels.row(0).aNames)
            QVERIFY(tip.contains(QString::fromStdString(n)));
        for (const std::string& n : kernels.row(0).bNames)
            QVERIFY(tip.contains(QString::fromStdString(n)));

        // A re-classification re-reads the breakdowns: the dialog recomputes, keeping its pick.
        RuleSet rules = m_session->rules();
        Rule moveAll;
        moveAll.pattern = "batch_norm";
        moveAll.category = Category::Overhead;
        moveAll.family = "test-moved";
        rules.insertRule(0, moveAll);
        m_session->setRules(std::move(rules));
        QVERIFY(test::waitIdle(*m_session));
        QVERIFY(dialog.diff().has_value());
        QCOMPARE(dialog.pickerA()->currentText(), QStringLiteral("resnet50_inference"));
        QCOMPARE(dialog.pickerB()->currentText(), QStringLiteral("resnet50_inference_compiled"));
        bool moved = false;
        for (const DiffRow& r : dialog.diff()->families)
            moved = moved || (r.key == "test-moved" && r.aUs > 0);
        QVERIFY2(moved, "the new rule's family shows up in the comparison");
        m_session->setRules(RuleSet::builtinDefault());
        QVERIFY(test::waitIdle(*m_session));
    }

    void projectionCheckShowsCoresNumbersOnBothBases() {
        const int a = rowNamed(*m_session, "resnet50_inference");
        const int b = rowNamed(*m_session, "resnet50_inference_compiled");
        ComparisonDialog dialog(m_session);
        QVERIFY(dialog.compare(a, b));
        QVERIFY(!dialog.projectionCheck());  // no candidate yet
        QVERIFY(dialog.projectionNote().contains(QStringLiteral("Type the pattern")));

        // Typed as a user would: the pattern, then the speedup.
        QTest::keyClicks(dialog.candidatePattern(), QStringLiteral("batch_norm"));
        dialog.candidateSpeedup()->setValue(1.5);
        const ProfileDiff diff = diffBreakdowns(*m_session->workloads()[size_t(a)].breakdown,
                                                *m_session->workloads()[size_t(b)].breakdown);
        const ProjectionCheck expected = checkCandidates(diff, {Candidate{"batch_norm", 1.5}});
        QVERIFY(dialog.projectionCheck().has_value());
        const ProjectionCheck& shown = *dialog.projectionCheck();
        QCOMPARE(shown.candidates.size(), size_t(1));
        QCOMPARE(shown.candidates.front().keys, expected.candidates.front().keys);
        QVERIFY(!expected.candidates.front().keys.empty());
        QCOMPARE(shown.candidates.front().aUs, expected.candidates.front().aUs);
        QCOMPARE(shown.candidates.front().bUs, expected.candidates.front().bUs);

        using D = ComparisonDialog;
        const double gpu = expected.aGpuTimeUs;
        QVERIFY(gpu > 0 && expected.aClock.known() && expected.bClock.spanUs > 0);
        QCOMPARE(cell(dialog, D::ProjectedRow, D::SavingColumn), expected.projectedSavingUs());
        QCOMPARE(cell(dialog, D::ProjectedRow, D::GpuShareColumn),
                 expected.projectedSavingUs() / gpu);
        QCOMPARE(cell(dialog, D::ProjectedRow, D::WallShareColumn), expected.projectedWallShare());
        QCOMPARE(cell(dialog, D::MeasuredKernelsRow, D::SavingColumn), expected.measuredSavingUs());
        QCOMPARE(cell(dialog, D::MeasuredKernelsRow, D::GpuShareColumn),
                 expected.measuredSavingUs() / gpu);
        QCOMPARE(cell(dialog, D::MeasuredTotalRow, D::SavingColumn),
                 expected.aGpuTimeUs - expected.bGpuTimeUs);
        QCOMPARE(cell(dialog, D::MeasuredTotalRow, D::WallShareColumn),
                 expected.measuredWallShare());
        // The projection on the wall clock is smaller than on GPU time (idle gaps stay).
        QVERIFY(expected.projectedWallShare() < expected.projectedSavingUs() / gpu);
        QCOMPARE(cellText(dialog, D::ProjectedRow, D::SavingColumn),
                 QString::number(expected.projectedSavingUs() / 1000.0, 'f', 3));
        QCOMPARE(cellText(dialog, D::ProjectedRow, D::WallShareColumn),
                 percentText(expected.projectedWallShare()));
        QCOMPARE(cellText(dialog, D::MeasuredTotalRow, D::WallShareColumn),
                 percentText(expected.measuredWallShare()));
        const QString note = dialog.projectionNote();
        QVERIFY2(note.contains(QString::number(expected.projectedSpeedup(), 'f', 3) + "x"),
                 qPrintable(note));
        QVERIFY2(note.contains(percentText(expected.aClock.busyShare())), qPrintable(note));
        QVERIFY2(note.contains(QString::fromUtf8(kCandidateAssumptions)), qPrintable(note));

        // A faster candidate projects more; the measured numbers stay.
        dialog.candidateSpeedup()->setValue(3.0);
        QVERIFY(cell(dialog, D::ProjectedRow, D::SavingColumn) > expected.projectedSavingUs());
        QCOMPARE(cell(dialog, D::MeasuredKernelsRow, D::SavingColumn), expected.measuredSavingUs());

        // A pattern that does not compile says why and shows no numbers; one that matches
        // nothing says so.
        dialog.setCandidate(QStringLiteral("(batch"), 1.5);
        QVERIFY(!dialog.projectionCheck());
        QVERIFY(!dialog.projectionNote().isEmpty());
        QCOMPARE(cellText(dialog, D::ProjectedRow, D::SavingColumn), QStringLiteral("-"));
        dialog.setCandidate(QStringLiteral("no_kernel_is_called_this"), 1.5);
        QVERIFY(dialog.projectionCheck().has_value());
        QCOMPARE(cell(dialog, D::ProjectedRow, D::SavingColumn), 0.0);
        QVERIFY(dialog.projectionNote().contains(QStringLiteral("matches no kernel of A")));
    }

private:
    Session* m_session = nullptr;
};

QTEST_MAIN(TestComparisonDialog)
#include "comparisondialog_test.moc"
