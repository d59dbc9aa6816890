// "Suggest rules" in the GUI on real traces of the repo: ResNet-50 (every kernel linked to its
// ATen operator) and vLLM replayed from a HIP graph (no operator links), with the rule set cut
// down to its memcpy and memset rules. The dialog lists exactly what core's suggestRules
// returns; one click puts the rule first through the session's hand-edit path and the
// breakdown follows; undo takes it back.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QPushButton>
#include <QTableView>
#include <QTest>
#include <cmath>

#include "core/analysis/breakdown.h"
#include "core/analysis/rulesuggest.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/rulesuggestdialog.h"
#include "ui/session.h"
#include "ui/views/breakdownview.h"

using namespace reach;

namespace {

constexpr const char* kVllm = "tracelens_vllm_decode_graph_mi300x";

int rowNamed(const Session& s, const std::string& name) {
    const auto& w = s.workloads();
    for (size_t i = 0; i < w.size(); ++i) {
        if (w[i].name == name && w[i].breakdown)
            return int(i);
    }
    return -1;
}

// The built-in set cut down to its memcpy and memset rules (as tests/core's rulesuggest test):
// no kernel has a name rule.
RuleSet dataMovementOnly() {
    RuleSet r = RuleSet::builtinDefault();
    while (r.size() > 2)
        r.removeRule(2);
    r.setName("data-movement-only");
    return r;
}

void compareToCore(const RuleSuggestDialog& dialog, const std::vector<RuleSuggestion>& expected) {
    const RuleSuggestModel& m = *dialog.model();
    QCOMPARE(m.rowCount(), int(expected.size()));
    for (int r = 0; r < m.rowCount(); ++r) {
        const RuleSuggestion& e = expected[size_t(r)];
        const RuleSuggestion& shown = m.entry(r).suggestion;
        QCOMPARE(shown.rule.pattern, e.rule.pattern);
        QCOMPARE(shown.rule.category, e.rule.category);
        QCOMPARE(shown.rule.family, e.rule.family);
        QCOMPARE(shown.basis, e.basis);
        QCOMPARE(shown.kernels, e.kernels);
        QCOMPARE(shown.changesOthers, e.changesOthers);
        // What the table shows is that suggestion, formatted.
        QCOMPARE(m.data(m.index(r, RuleSuggestModel::Pattern)).toString(),
                 QString::fromStdString(e.rule.pattern));
        QCOMPARE(m.data(m.index(r, RuleSuggestModel::Basis)).toString(),
                 QString::fromStdString(e.basis));
        QCOMPARE(
            m.data(m.index(r, RuleSuggestModel::TimeMs), RuleSuggestModel::ValueRole).toDouble(),
            e.totalUs / 1000.0);
        QCOMPARE(
            m.data(m.index(r, RuleSuggestModel::Share), RuleSuggestModel::ValueRole).toDouble(),
            e.share);
        QCOMPARE(m.data(m.index(r, RuleSuggestModel::Kernels), RuleSuggestModel::KernelsRole)
                     .toStringList()
                     .size(),
                 int(e.kernels.size()));
        QVERIFY(dialog.acceptButton(r) != nullptr);
        QVERIFY(dialog.acceptButton(r)->isEnabled());
    }
}

}  // namespace

class TestRuleSuggestDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        m_session = new Session(this);
        QString error;
        QVERIFY2(m_session->openDefault(&error), qPrintable(error));
        QVERIFY(test::waitIdle(*m_session));
        m_session->importProfiles(
            {QStringLiteral(REACH_DATASETS "/profiles/public/") + kVllm + ".json.gz"});
        QVERIFY(test::waitIdle(*m_session));
        QVERIFY2(rowNamed(*m_session, kVllm) >= 0, "the vLLM trace was imported");
    }

    void init() {
        m_session->setRules(dataMovementOnly());
        QVERIFY(test::waitIdle(*m_session));
    }

    void nothingToSuggestWithTheDefaultRules() {
        m_session->setRules(RuleSet::builtinDefault());
        QVERIFY(test::waitIdle(*m_session));
        const int row = rowNamed(*m_session, "resnet50_inference");
        QVERIFY(row >= 0);
        RuleSuggestDialog dialog(m_session, row);
        QCOMPARE(dialog.model()->rowCount(), 0);
        QVERIFY(!dialog.acceptAllButton()->isEnabled());
        QVERIFY(!dialog.acceptAllSuggestions());
        QVERIFY2(dialog.summary().contains(QStringLiteral("nothing to suggest")),
                 qPrintable(dialog.summary()));
    }

    void listsWhatCoreReturns() {
        const int row = rowNamed(*m_session, "resnet50_inference");
        RuleSuggestDialog dialog(m_session, row);
        QAbstractItemModelTester tester(dialog.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(dialog.picker()->currentData().toInt(), row);
        const Breakdown& b = *m_session->workloads()[size_t(row)].breakdown;
        const std::vector<RuleSuggestion> expected = suggestRules(b);
        QVERIFY(expected.size() >= 3);
        compareToCore(dialog, expected);
        // Every ResNet-50 kernel is linked: the operator proposes each category, and says so.
        for (const RuleSuggestion& s : expected)
            QVERIFY2(s.basis.rfind("operator ", 0) == 0, s.basis.c_str());

        // Every measured workload: each one's suggestions in turn, as `rules suggest` lists them.
        QVERIFY(dialog.pick(-1));
        std::vector<RuleSuggestion> all;
        for (const ProjectWorkload& w : m_session->workloads()) {
            if (!w.breakdown)
                continue;
            for (RuleSuggestion& s : suggestRules(*w.breakdown))
                all.push_back(std::move(s));
        }
        QVERIFY(all.size() > expected.size());
        compareToCore(dialog, all);
        // A published row has no kernels: it cannot be picked, and every workload is shown.
        int published = -1;
        for (size_t i = 0; i < m_session->workloads().size(); ++i) {
            if (!m_session->workloads()[i].breakdown)
                published = int(i);
        }
        QVERIFY(published >= 0);
        QVERIFY(!dialog.pick(published));
        QCOMPARE(dialog.model()->rowCount(), int(all.size()));
    }

    void oneClickNamesTheKernelsAndUndoTakesItBack() {
        const int row = rowNamed(*m_session, "resnet50_inference");
        const std::shared_ptr<const Breakdown> before =
            m_session->workloads()[size_t(row)].breakdown;
        RuleSuggestDialog dialog(m_session, row);
        const RuleSuggestion first = dialog.model()->entry(0).suggestion;
        const size_t rulesBefore = m_session->rules().size();

        dialog.show();  // the button is clicked where it is drawn
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTest::mouseClick(dialog.acceptButton(0), Qt::LeftButton);
        // The session's hand-edit path: first in the set, renamed, undoable.
        QCOMPARE(m_session->rules().size(), rulesBefore + 1);
        QCOMPARE(m_session->rules().rules()[0].pattern, first.rule.pattern);
        QCOMPARE(m_session->rules().rules()[0].category, first.rule.category);
        QCOMPARE(QString::fromStdString(m_session->rules().name()),
                 QStringLiteral("data-movement-only (edited)"));
        QVERIFY(m_session->canUndoRuleEdit());
        // Until the re-classification arrives nothing more can be accepted.
        QVERIFY(dialog.isStale());
        QVERIFY(!dialog.acceptButton(0)->isEnabled());
        QVERIFY(!dialog.acceptSuggestion(1));
        QVERIFY(test::waitIdle(*m_session));

        const Breakdown& after = *m_session->workloads()[size_t(row)].breakdown;
        QCOMPARE(after.rulesHash, m_session->rules().hash());
        // Name rules now decide the suggestion's kernels, with the category its operator gave.
        QVERIFY(after.decisionShare(Decision::Rule) - before->decisionShare(Decision::Rule) >=
                first.share - 1e-12);
        QVERIFY(std::abs(after.classifiedShare - before->classifiedShare) < 1e-9);
        // The dialog listed the new breakdown's suggestions: the accepted one is gone.
        QVERIFY(!dialog.isStale());
        compareToCore(dialog, suggestRules(after));
        for (int r = 0; r < dialog.model()->rowCount(); ++r)
            QVERIFY(dialog.model()->entry(r).suggestion.rule.pattern != first.rule.pattern);

        m_session->undoRuleEdit();
        QVERIFY(test::waitIdle(*m_session));
        QCOMPARE(m_session->rules().hash(), dataMovementOnly().hash());
        QCOMPARE(m_session->workloads()[size_t(row)].breakdown->decisionShare(Decision::Rule),
                 before->decisionShare(Decision::Rule));
        compareToCore(dialog, suggestRules(*before));
    }

    void oneClickRaisesTheClassifiedShare() {
        // No kernel of the vLLM graph replay is linked to an operator: without name rules it is
        // unclassified, and an accepted suggestion classifies its time.
        const int row = rowNamed(*m_session, kVllm);
        const std::shared_ptr<const Breakdown> before =
            m_session->workloads()[size_t(row)].breakdown;
        QVERIFY(before->classifiedShare < 0.5);
        RuleSuggestDialog dialog(m_session, row);
        compareToCore(dialog, suggestRules(*before));
        dialog.show();  // the button is clicked where it is drawn
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const RuleSuggestion first = dialog.model()->entry(0).suggestion;
        QCOMPARE(first.rule.pattern, std::string("^(void )?_matmul_ogs_NNT_"));
        QTest::mouseClick(dialog.acceptButton(0), Qt::LeftButton);
        QVERIFY(test::waitIdle(*m_session));
        const Breakdown& after = *m_session->workloads()[size_t(row)].breakdown;
        QVERIFY(after.classifiedShare - before->classifiedShare >= first.share - 1e-12);
        QVERIFY(after.share(first.rule.category) - before->share(first.rule.category) >=
                first.share - 1e-12);
        QVERIFY2(dialog.summary().contains(QString::number(100.0 * after.classifiedShare, 'f', 2) +
                                           " %"),
                 qPrintable(dialog.summary()));
        m_session->undoRuleEdit();
        QVERIFY(test::waitIdle(*m_session));
        QCOMPARE(m_session->workloads()[size_t(row)].breakdown->classifiedShare,
                 before->classifiedShare);
        QVERIFY(m_session->canRedoRuleEdit());
        m_session->redoRuleEdit();
        QVERIFY(test::waitIdle(*m_session));
        QCOMPARE(m_session->rules().rules()[0].pattern, first.rule.pattern);
    }

    void acceptAllIsOneEdit() {
        const int row = rowNamed(*m_session, kVllm);
        const std::shared_ptr<const Breakdown> before =
            m_session->workloads()[size_t(row)].breakdown;
        RuleSuggestDialog dialog(m_session, row);
        const std::vector<RuleSuggestion> expected = suggestRules(*before);
        double covered = 0;
        for (const RuleSuggestion& s : expected)
            covered += s.share;
        QTest::mouseClick(dialog.acceptAllButton(), Qt::LeftButton);
        // Core's acceptSuggestions order: the suggestions first, largest first.
        const RuleSet expectedSet = acceptSuggestions(dataMovementOnly(), expected);
        QCOMPARE(m_session->rules().size(), expectedSet.size());
        for (size_t i = 0; i < expectedSet.size(); ++i)
            QCOMPARE(m_session->rules().rules()[i].pattern, expectedSet.rules()[i].pattern);
        QVERIFY(test::waitIdle(*m_session));
        const Breakdown& after = *m_session->workloads()[size_t(row)].breakdown;
        // Name rules now decide all the time the suggestions covered (some of it the few linked
        // kernels' operators had decided); what stays unclassified has no name stem.
        QVERIFY(after.decisionShare(Decision::Rule) - before->decisionShare(Decision::Rule) >=
                covered - 1e-9);
        QVERIFY(after.classifiedShare > 0.9 && before->classifiedShare < 0.1);
        QVERIFY(suggestRules(after).empty());
        QCOMPARE(dialog.model()->rowCount(), 0);
        // One edit: one undo gives the cut-down set back.
        m_session->undoRuleEdit();
        QVERIFY(test::waitIdle(*m_session));
        QCOMPARE(m_session->rules().hash(), dataMovementOnly().hash());
        QVERIFY(!m_session->canUndoRuleEdit());
    }

    void breakdownViewOpensItForTheSelectedWorkload() {
        BreakdownView view(m_session);
        const int row = rowNamed(*m_session, kVllm);
        QVERIFY(view.selectSegment(row, Category::Unclassified));
        RuleSuggestDialog* dialog = view.openRuleSuggestions();
        QVERIFY(dialog->isVisible());
        QCOMPARE(dialog->picker()->currentData().toInt(), row);
        compareToCore(*dialog, suggestRules(*m_session->workloads()[size_t(row)].breakdown));
        dialog->close();
    }

private:
    Session* m_session = nullptr;
};

QTEST_MAIN(TestRuleSuggestDialog)
#include "rulesuggestdialog_test.moc"
