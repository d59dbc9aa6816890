// Breakdown view on the bundled sample: the plot holds exactly the model's numbers, a click on a
// segment fills the drill-down, and adding or editing a rule re-classifies live.
#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <functional>
#include <optional>

#include "core/analysis/breakdown.h"
#include "core/analysis/kernelname.h"
#include "core/analysis/ruleedit.h"
#include "core/project/workloadlabels.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/addruledialog.h"
#include "ui/models/rulesetmodel.h"
#include "ui/session.h"
#include "ui/theme.h"
#include "ui/views/breakdownview.h"
#include "ui/views/projectbrowser.h"

using namespace reach;

namespace {

// Value of a bar series at a key (NaN when the series has no bar there).
double barValue(QCPBars* bars, double key) {
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
        if (std::abs(it->key - key) < 1e-9)
            return it->value;
    }
    return std::nan("");
}

int firstMeasuredRow(const BreakdownModel& model) {
    for (int r = 0; r < model.rowCount(); ++r) {
        if (model.workload(r).breakdown)
            return r;
    }
    return -1;
}

}  // namespace

class TestBreakdownView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        m_session = new Session(this);
        QString error;
        QVERIFY2(m_session->openDefault(&error), qPrintable(error));
        m_view = new BreakdownView(m_session);
        // The published rows are there at once, before any profile is read.
        QCOMPARE(m_view->model()->rowCount(), 7);
        QVERIFY(test::waitIdle(*m_session));
        m_view->resize(1100, 800);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view));
    }
    void cleanupTestCase() { delete m_view; }

    void sampleHasPublishedAndMeasuredRows() {
        const BreakdownModel& model = *m_view->model();
        QCOMPARE(model.rowCount(), 13);  // 7 published (A100) + 6 H200 profiles
        int published = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            published += model.workload(r).published ? 1 : 0;
        QCOMPARE(published, 7);
        // DLRM inference as published: 37.4% library-optimized, 58.2% addressable.
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.workload(r).name == "DLRM inference") {
                QCOMPARE(model.share(r, Category::Addressable), 0.582);
                QCOMPARE(model.workload(r).origin, std::string("published, A100"));
            }
        }
    }

    void plotEqualsModel() {
        const BreakdownModel& model = *m_view->model();
        for (int r = 0; r < model.rowCount(); ++r) {
            const double key = m_view->keyOfRow(r);
            for (Category c : kCategories) {
                const double fromModel = model
                                             .data(model.index(r, BreakdownModel::columnOf(c)),
                                                   BreakdownModel::ValueRole)
                                             .toDouble();
                QCOMPARE(barValue(m_view->bars(c), key), 100.0 * fromModel);
            }
            const double addr = 100.0 * model.share(r, Category::Addressable);
            QVERIFY2(m_view->barLabel(r).startsWith(QString::number(addr, 'f', 1) + '%'),
                     qPrintable(m_view->barLabel(r)));
            if (model.workload(r).breakdown) {
                // Measured rows: the four categories cover all GPU time.
                double sum = 0;
                for (Category c : kCategories)
                    sum += model.share(r, c);
                QVERIFY(std::abs(sum - 1.0) < 1e-9);
            }
        }
        QVERIFY(m_view->plot()->yAxis->range().contains(m_view->keyOfRow(0)));
        QVERIFY(m_view->plot()->yAxis->range().contains(m_view->keyOfRow(model.rowCount() - 1)));
    }

    // Every segment with room for its share carries it, inside the segment, in a colour that
    // reads on the segment's fill (WCAG 2's 4.5:1 for small text); a share that does not fit
    // in the addressable segment is printed after the bar, inside the widget.
    void everySegmentThatFitsIsLabelledReadably() {
        QCustomPlot* plot = m_view->plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const BreakdownModel& model = *m_view->model();
        QList<QCPItemText*> shown;
        for (int i = 0; i < plot->itemCount(); ++i) {
            auto* t = qobject_cast<QCPItemText*>(plot->item(i));
            if (t && t->visible())
                shown << t;
        }
        QCPAxis* x = plot->xAxis;
        int labelled = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.spanUnknown(r))
                continue;
            const double key = m_view->keyOfRow(r);
            double start = 0;
            for (Category c : kCategories) {
                const double share = 100.0 * model.share(r, c);
                if (share <= 0)
                    continue;
                const QString text = QString::number(share, 'f', 1) + QLatin1Char('%');
                const double left = x->coordToPixel(start), right = x->coordToPixel(start + share);
                start += share;
                QCPItemText* label = nullptr;
                for (QCPItemText* t : shown) {
                    if (std::abs(t->position->coords().y() - key) < 1e-9 &&
                        (t->text() == text || t->text().startsWith(text + QLatin1Char(' '))))
                        label = t;
                }
                const double width = QFontMetricsF(Theme::plotFont(8)).horizontalAdvance(text);
                const QString where =
                    QString::fromStdString(model.workload(r).name) + " " +
                    QString::fromUtf8(categoryKey(c).data(), qsizetype(categoryKey(c).size())) +
                    " " + text;
                const QFontMetricsF tm(Theme::plotFont(8));
                const double ink = tm.tightBoundingRect(text).height();
                const double bar = std::abs(plot->yAxis->coordToPixel(m_view->bars(c)->width()) -
                                            plot->yAxis->coordToPixel(0));
                if (width + 8 > right - left || ink + 4 > bar) {
                    // No room: only the addressable share is printed, after the bar.
                    if (c == Category::Addressable) {
                        QVERIFY2(label, qPrintable(where));
                        const double end =
                            label->position->pixelPosition().x() +
                            QFontMetricsF(label->font()).horizontalAdvance(label->text()) + 3;
                        QVERIFY2(end <= plot->width(), qPrintable(where));
                    }
                    continue;
                }
                if (!(label && label->text() == text)) {
                    for (int i = 0; i < plot->itemCount(); ++i)
                        if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)))
                            qDebug() << t->text() << t->visible() << t->position->coords() << key
                                     << left << right << width << m_view->plot()->height();
                }
                QVERIFY2(label && label->text() == text, qPrintable(where));
                const double centre = label->position->pixelPosition().x();
                QVERIFY2(centre - width / 2 >= left && centre + width / 2 <= right,
                         qPrintable(where));
                const double middle = label->position->pixelPosition().y();
                QVERIFY2(std::abs(middle - plot->yAxis->coordToPixel(key)) < 1, qPrintable(where));
                const double contrast =
                    Theme::contrastRatio(label->color(), Theme::categoryColor(c));
                QVERIFY2(contrast >= 4.5,
                         qPrintable(where + QStringLiteral(": contrast %1").arg(contrast)));
                ++labelled;
            }
        }
        QVERIFY2(labelled > model.rowCount(),
                 qPrintable(QStringLiteral("more than one segment per row has room: %1 labelled "
                                           "in %2 rows, plot %3 px high")
                                .arg(labelled)
                                .arg(model.rowCount())
                                .arg(plot->height())));
        // The share axis's end is labelled: QCustomPlot drops a tick label the widget's edge
        // would cut, so "100" needs its half width right of the axis.
        const double half = QFontMetricsF(x->tickLabelFont()).horizontalAdvance("100") / 2;
        QVERIFY(x->tickVectorLabels().contains(QStringLiteral("100")));
        QVERIFY2(x->coordToPixel(100) + half <= plot->width(),
                 qPrintable(QStringLiteral("%1 + %2 > %3")
                                .arg(x->coordToPixel(100))
                                .arg(half)
                                .arg(plot->width())));
    }

    // Two devices measured the same workloads (the study's A100 table and a table of the same
    // names on an H100, imported beside it): on screen every row's label still differs (the
    // device tag) and names the row's device.
    void rowsWithTheSameNameAreToldApart() {
        QTemporaryDir dir;
        QFile table(dir.filePath(QStringLiteral("h100.json")));
        QVERIFY(table.open(QIODevice::WriteOnly));
        QJsonArray workloads;
        workloads.append(QJsonObject{
            {"name", "DLRM inference"}, {"library_optimized", 0.40}, {"addressable", 0.55}});
        workloads.append(QJsonObject{
            {"name", "ResNet-50 inference"}, {"library_optimized", 0.70}, {"addressable", 0.25}});
        table.write(QJsonDocument(QJsonObject{{"source",
                                               "Reach test: the same names on another device "
                                               "(H100-SXM, bf16)"},
                                              {"projection", QJsonObject{{"win_rate", 0.4},
                                                                         {"median_speedup", 1.5}}},
                                              {"workloads", workloads}})
                        .toJson());
        table.close();
        Session session;
        QString error;
        QVERIFY2(session.openDefault(&error), qPrintable(error));
        QSignalSpy errors(&session, &Session::loadError);
        session.importProfiles({table.fileName()});
        QVERIFY(test::waitIdle(session));
        QVERIFY2(errors.isEmpty(), qPrintable(errors.value(0).value(0).toString()));
        BreakdownView view(&session);
        view.resize(1100, 800);
        const BreakdownModel& model = *view.model();
        QCOMPARE(model.rowCount(), 15);
        auto ticker = view.plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QSet<QString> labels;
        int shared = 0;
        std::vector<std::string> names;
        for (int r = 0; r < model.rowCount(); ++r)
            names.push_back(model.workload(r).name);
        const std::vector<std::string> shortened = shortNames(names);
        for (int r = 0; r < model.rowCount(); ++r) {
            const QString name = QString::fromStdString(model.workload(r).name);
            const QString label = ticker->ticks().value(view.keyOfRow(r));
            // The row's short name (core/project/workloadlabels.h), then its tag.
            QVERIFY2(label.startsWith(QString::fromStdString(shortened[size_t(r)])),
                     qPrintable(label));
            labels.insert(label);
            if (name == QStringLiteral("DLRM inference") ||
                name == QStringLiteral("ResNet-50 inference")) {
                ++shared;
                const bool h100 = QString::fromStdString(model.workload(r).origin).contains("H100");
                QVERIFY2(label.contains(h100 ? "H100" : "A100"), qPrintable(label));
            }
        }
        QCOMPARE(shared, 4);
        QCOMPARE(labels.size(), qsizetype(model.rowCount()));
    }

    void spanSharesAddUpWithIdle() {
        m_view->setSpanShares(true);
        const BreakdownModel& model = *m_view->model();
        QVERIFY(model.spanShares());
        for (int r = 0; r < model.rowCount(); ++r) {
            const Breakdown* b = model.workload(r).breakdown.get();
            if (!b)
                continue;
            double sum = model.idle(r);
            for (Category c : kCategories) {
                sum += model.share(r, c);
                QCOMPARE(barValue(m_view->bars(c), m_view->keyOfRow(r)), 100.0 * model.share(r, c));
            }
            QVERIFY2(std::abs(sum - 1.0) < 1e-9, model.workload(r).name.c_str());
            QCOMPARE(model.idle(r), std::max(0.0, 1.0 - b->busyTimeUs / b->spanUs));
        }
        m_view->setSpanShares(false);
        QVERIFY(!model.spanShares());
    }

    void operatorSplitShowsSecondBar() {
        m_view->setOperatorSplit(true);
        const BreakdownModel& model = *m_view->model();
        int withOps = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (!model.hasOperatorSplit(r))
                continue;
            ++withOps;
            const double opKey = m_view->keyOfRow(r) - 0.4;
            for (Category c : kCategories) {
                QCOMPARE(barValue(m_view->operatorBars(c), opKey),
                         100.0 * model.workload(r).breakdown->opShare(c));
            }
        }
        QVERIFY2(withOps > 0, "the H200 Kineto traces link kernels to ATen operators");
        // For looking at the figure by hand: REACH_UI_DUMP=DIR saves this state as a PNG.
        if (qEnvironmentVariableIsSet("REACH_UI_DUMP")) {
            m_view->plot()->replot(QCustomPlot::rpImmediateRefresh);
            m_view->grab().save(qEnvironmentVariable("REACH_UI_DUMP") + "/breakdown-opsplit.png");
        }
        m_view->setOperatorSplit(false);
        QCOMPARE(m_view->operatorBars(Category::Addressable)->dataCount(), 0);
    }

    void clickOnSegmentFillsDrillDown() {
        const BreakdownModel& model = *m_view->model();
        const int row = firstMeasuredRow(model);
        QVERIFY(row >= 0);
        QCustomPlot* plot = m_view->plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const double lib = 100.0 * model.share(row, Category::LibraryOptimized);
        const double addr = 100.0 * model.share(row, Category::Addressable);
        QVERIFY(addr > 1.0);
        const QPoint at(int(plot->xAxis->coordToPixel(lib + addr / 2)),
                        int(plot->yAxis->coordToPixel(m_view->keyOfRow(row))));
        // Start from another segment so the click has something to change.
        QVERIFY(m_view->selectSegment(row, Category::LibraryOptimized));
        QCOMPARE(m_view->kernelModel()->category(), Category::LibraryOptimized);
        QSignalSpy selected(m_view, &BreakdownView::segmentSelected);
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.front().at(0).toInt(), row);
        QCOMPARE(selected.front().at(1).value<Category>(), Category::Addressable);

        const KernelModel& kernels = *m_view->kernelModel();
        QVERIFY(kernels.rowCount() > 0);
        QCOMPARE(kernels.category(), Category::Addressable);
        QCOMPARE(kernels.breakdown(), model.workload(row).breakdown.get());
        double previous = INFINITY;
        for (int k = 0; k < kernels.rowCount(); ++k) {
            QCOMPARE(kernels.kernel(k).category, Category::Addressable);
            const double ms =
                kernels.data(kernels.index(k, KernelModel::TimeMs), KernelModel::ValueRole)
                    .toDouble();
            QVERIFY(ms <= previous);  // largest first
            previous = ms;
            // Full name in the tooltip, shortened name on display.
            QCOMPARE(kernels.data(kernels.index(k, KernelModel::Name), Qt::ToolTipRole)
                         .toString()
                         .section('\n', 0, 0),
                     QString::fromStdString(kernels.kernel(k).stats.name));
        }
        // The drill-down chart holds the same times as the table (top 12, largest on top).
        QCPBars* drill = qobject_cast<QCPBars*>(m_view->drillPlot()->plottable(0));
        QVERIFY(drill);
        const int shown = std::min(kernels.rowCount(), 12);
        QCOMPARE(drill->dataCount(), shown);
        for (int k = 0; k < shown; ++k) {
            QCOMPARE(barValue(drill, shown - 1 - k),
                     kernels.data(kernels.index(k, KernelModel::TimeMs), KernelModel::ValueRole)
                         .toDouble());
        }
    }

    // "Add rule..." opens on the category the rule set gives the kernel's family (core's
    // proposeRuleCategory), with that family filled in.
    void addRuleProposesTheFamilysCategory() {
        const BreakdownModel& model = *m_view->model();
        const int row = firstMeasuredRow(model);
        QVERIFY(row >= 0);
        QVERIFY(m_view->selectSegment(row, Category::LibraryOptimized));
        QSortFilterProxyModel* shown = m_view->kernelView();
        QVERIFY(shown->rowCount() > 0);
        m_view->kernelTable()->setCurrentIndex(shown->index(0, 0));
        const QString name = shown->data(shown->index(0, 0), KernelModel::FullNameRole).toString();
        const RuleSet& rules = m_session->rules();
        const CategoryProposal expected =
            proposeRuleCategory(rules, model.workload(row).breakdown.get(), name.toStdString(),
                                Category::LibraryOptimized);
        QVERIFY(!expected.family.empty());
        QVERIFY2(std::any_of(rules.rules().begin(), rules.rules().end(),
                             [&](const Rule& r) {
                                 return r.family == expected.family &&
                                        r.category == expected.category;
                             }),
                 "the proposal is the category of a rule of the kernel's family");
        std::optional<Rule> proposed;
        std::function<void()> readDialog = [&] {
            for (QWidget* w : QApplication::topLevelWidgets()) {
                if (auto* dialog = qobject_cast<AddRuleDialog*>(w); dialog && dialog->isVisible()) {
                    proposed = dialog->rule();
                    dialog->reject();
                    return;
                }
            }
            QTimer::singleShot(0, readDialog);  // not shown yet
        };
        QTimer::singleShot(0, readDialog);
        QPushButton* add = nullptr;
        for (QPushButton* b : m_view->findChildren<QPushButton*>()) {
            if (b->text() == QStringLiteral("Add rule..."))
                add = b;
        }
        QVERIFY(add && add->isEnabled());
        add->click();
        QVERIFY(proposed);
        QCOMPARE(proposed->category, expected.category);
        QCOMPARE(proposed->family, expected.family);
    }

    // The kernel table lists every kernel of the segment with its launching operator and what
    // decided its category; it sorts by any column and filters by names, operator and decision.
    void kernelTableListsSortsAndFiltersEveryKernel() {
        const BreakdownModel& model = *m_view->model();
        // The workload with the most addressable kernels: more rows than any old top-N cut.
        int row = -1;
        size_t most = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto& b = model.workload(r).breakdown;
            if (!b)
                continue;
            const size_t n = size_t(std::count_if(
                b->kernels.begin(), b->kernels.end(),
                [](const ClassifiedKernel& k) { return k.category == Category::Addressable; }));
            if (n > most) {
                most = n;
                row = r;
            }
        }
        QVERIFY(row >= 0);
        QVERIFY2(most > 50, "the sample has a workload with more than 50 addressable kernels");
        QVERIFY(m_view->selectSegment(row, Category::Addressable));
        const KernelModel& kernels = *m_view->kernelModel();
        QCOMPARE(size_t(kernels.rowCount()), most);
        bool sawOperator = false;
        for (int k = 0; k < kernels.rowCount(); ++k) {
            const ClassifiedKernel& ck = kernels.kernel(k);
            const QString op = QString::fromStdString(ck.stats.dominantOperator());
            QCOMPARE(kernels.data(kernels.index(k, KernelModel::Operator)).toString(), op);
            QCOMPARE(kernels.data(kernels.index(k, KernelModel::DecidedBy)).toString(),
                     QString::fromStdString(ck.decidedBy()));
            QCOMPARE(
                kernels.data(kernels.index(k, KernelModel::Name)).toString(),
                QString::fromStdString(kernelDisplayName(ck.stats.name, KernelModel::kNameChars)));
            QCOMPARE(kernels.data(kernels.index(k, KernelModel::Name), KernelModel::FullNameRole)
                         .toString(),
                     QString::fromStdString(ck.stats.name));
            sawOperator = sawOperator || !op.isEmpty();
        }
        QVERIFY2(sawOperator, "the sample links kernels to their operators");

        QSortFilterProxyModel* view = m_view->kernelView();
        QCOMPARE(m_view->kernelTable()->model(), view);
        QCOMPARE(view->rowCount(), kernels.rowCount());
        // Numbers sort as numbers, names as text (a header click does the same).
        m_view->kernelTable()->sortByColumn(KernelModel::Calls, Qt::AscendingOrder);
        for (int r = 1; r < view->rowCount(); ++r) {
            QVERIFY(view->data(view->index(r - 1, KernelModel::Calls), KernelModel::ValueRole)
                        .toLongLong() <=
                    view->data(view->index(r, KernelModel::Calls), KernelModel::ValueRole)
                        .toLongLong());
        }
        m_view->kernelTable()->sortByColumn(KernelModel::Name, Qt::AscendingOrder);
        for (int r = 1; r < view->rowCount(); ++r) {
            QVERIFY(view->data(view->index(r - 1, KernelModel::Name)).toString().toLower() <=
                    view->data(view->index(r, KernelModel::Name)).toString().toLower());
        }
        m_view->kernelTable()->sortByColumn(KernelModel::TimeMs, Qt::DescendingOrder);
        for (int r = 0; r < view->rowCount(); ++r) {
            QCOMPARE(view->data(view->index(r, KernelModel::Name), KernelModel::FullNameRole),
                     kernels.data(kernels.index(r, KernelModel::Name), KernelModel::FullNameRole));
        }

        // The filter finds an operator, and text that only the full name holds.
        const QString op = QString::fromStdString(kernels.kernel(0).stats.dominantOperator());
        const auto expected = [&](const QString& needle) {
            int n = 0;
            for (int k = 0; k < kernels.rowCount(); ++k) {
                const ClassifiedKernel& ck = kernels.kernel(k);
                for (const std::string& text :
                     {kernelDisplayName(ck.stats.name, KernelModel::kNameChars), ck.stats.name,
                      ck.stats.dominantOperator(), ck.family, ck.decidedBy()}) {
                    if (QString::fromStdString(text).contains(needle, Qt::CaseInsensitive)) {
                        ++n;
                        break;
                    }
                }
            }
            return n;
        };
        for (const QString& needle : {op, QStringLiteral("AT::NATIVE::"), QStringLiteral("rule "),
                                      QStringLiteral("no-such-kernel-anywhere")}) {
            m_view->kernelFilter()->setText(needle);
            QCOMPARE(view->rowCount(), expected(needle));
            for (int r = 0; r < view->rowCount(); ++r) {
                QVERIFY(view->data(view->index(r, 0), KernelModel::SearchRole)
                            .toString()
                            .contains(needle, Qt::CaseInsensitive));
            }
        }
        QVERIFY(!op.isEmpty());
        m_view->kernelFilter()->setText(QStringLiteral("at::native::"));
        QVERIFY(view->rowCount() > 0);
        QVERIFY(view->rowCount() < kernels.rowCount());
        // The chart beside the table shows what the filter leaves (issue 40, defect 8).
        QCPBars* drill = qobject_cast<QCPBars*>(m_view->drillPlot()->plottable(0));
        QVERIFY(drill);
        QCOMPARE(drill->dataCount(), std::min(view->rowCount(), 12));
        m_view->kernelFilter()->setText(QStringLiteral("no-such-kernel-anywhere"));
        QCOMPARE(drill->dataCount(), 0);
        m_view->kernelFilter()->clear();
        QCOMPARE(view->rowCount(), kernels.rowCount());
        QCOMPARE(drill->dataCount(), std::min(kernels.rowCount(), 12));
    }

    void addRuleReclassifiesLive() {
        const BreakdownModel& model = *m_view->model();
        const int row = firstMeasuredRow(model);
        QVERIFY(m_view->selectSegment(row, Category::Addressable));
        const KernelModel& kernels = *m_view->kernelModel();
        QVERIFY(kernels.rowCount() > 0);
        const ClassifiedKernel moved = kernels.kernel(0);
        const QString name = QString::fromStdString(moved.stats.name);
        const auto before = model.workload(row).breakdown;

        Rule rule;
        rule.pattern = AddRuleDialog::escapePattern(name).toStdString();
        rule.category = Category::Overhead;
        rule.family = "test-moved";
        QSignalSpy changed(m_session, &Session::workloadsChanged);
        QVERIFY(m_view->addRule(rule));
        QVERIFY(test::waitIdle(*m_session));
        QVERIFY(changed.count() >= 1);

        const auto after = m_view->model()->workload(row).breakdown;
        QVERIFY(after != before);
        QCOMPARE(QString::fromStdString(after->rulesHash),
                 QString::fromStdString(m_session->rules().hash()));
        const double kernelShare = moved.stats.totalUs / before->gpuTimeUs;
        // The escaped name matches this kernel (and at most other kernels containing it).
        QVERIFY(before->share(Category::Addressable) - after->share(Category::Addressable) >=
                kernelShare - 1e-12);
        QVERIFY(after->share(Category::Overhead) - before->share(Category::Overhead) >=
                kernelShare - 1e-12);
        // And the plot shows the new numbers.
        QCOMPARE(barValue(m_view->bars(Category::Addressable), m_view->keyOfRow(row)),
                 100.0 * after->share(Category::Addressable));
        // The drill-down followed the re-classification: the moved kernel left the list.
        for (int k = 0; k < m_view->kernelModel()->rowCount(); ++k)
            QVERIFY(m_view->kernelModel()->kernel(k).stats.name != moved.stats.name);
    }

    void editingRuleInTableChangesBreakdown() {
        ProjectBrowser browser(m_session);
        RuleSetModel* rules = browser.rulesModel();
        QCOMPARE(rules->rowCount(), int(m_session->rules().size()));
        // Rule 0 is the one added above; send the kernel back to addressable by editing it.
        const int row = firstMeasuredRow(*m_view->model());
        const double overheadBefore = m_view->model()->share(row, Category::Overhead);
        QVERIFY(rules->setData(rules->index(0, RuleSetModel::CategoryColumn), "addressable"));
        QVERIFY(!rules->setData(rules->index(0, RuleSetModel::CategoryColumn), "no such category"));
        QVERIFY(!rules->setData(rules->index(0, RuleSetModel::Pattern), "(unbalanced"));
        QVERIFY(test::waitIdle(*m_session));
        QVERIFY(m_view->model()->share(row, Category::Overhead) < overheadBefore);
        // Removing it gives back the bundled default rule set exactly.
        QVERIFY(rules->removeRuleAt(0));
        QVERIFY(test::waitIdle(*m_session));
        QCOMPARE(QString::fromStdString(m_session->rules().hash()),
                 QString::fromStdString(RuleSet::builtinDefault().hash()));
    }

    void modelsPassTester() {
        QAbstractItemModelTester breakdown(m_view->model(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester kernels(m_view->kernelModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
        RuleSetModel rules;
        QAbstractItemModelTester rulesTester(
            &rules, QAbstractItemModelTester::FailureReportingMode::QtTest);
        rules.setRules(m_session->rules());
        Rule r;
        r.pattern = "^foo";
        QVERIFY(rules.insertRule(1, r));
        QVERIFY(rules.removeRuleAt(1));
        // Exercise resets while the testers watch.
        m_view->setSpanShares(true);
        m_view->setSpanShares(false);
        m_view->selectSegment(firstMeasuredRow(*m_view->model()), Category::LibraryOptimized);
        m_view->kernelModel()->clear();
    }

    // Another project (Ctrl+O): the drill-down shows the new project's first profile, never the
    // workload and kernels of the last one beside the new bars.
    void anotherProjectResetsTheDrillDown() {
        Session session;
        QString error;
        QVERIFY2(session.openDefault(&error), qPrintable(error));
        BreakdownView view(&session);
        QVERIFY(test::waitIdle(session));
        const int row = firstMeasuredRow(*view.model());
        QVERIFY(view.selectSegment(row, Category::Overhead));
        const QString before = toQString(view.model()->workload(row).name);
        const Breakdown* old = view.kernelModel()->breakdown();
        QVERIFY(old);

        QVERIFY2(session.openProject(
                     QStringLiteral(REACH_TEST_DATA "/kineto/reordered_triton.json"), &error),
                 qPrintable(error));
        QVERIFY(test::waitIdle(session));
        QCOMPARE(view.model()->rowCount(), 1);
        const QString now = toQString(view.model()->workload(0).name);
        QVERIFY(now != before);
        QCOMPARE(view.kernelModel()->breakdown(), view.model()->workload(0).breakdown.get());
        QCOMPARE(view.kernelModel()->category(), Category::Addressable);
        const QString title = view.findChild<QLabel*>(QStringLiteral("drillTitle"))->text();
        QVERIFY2(title.contains(now) && !title.contains(before), qPrintable(title));
    }

    // "Make benchmark from this workload..." on the bars' context menu: enabled on a profiled
    // workload's bar, it writes the folder reach-cli extract writes (core's one writer), and
    // refuses a folder that holds files and a profile without shapes, saying why.
    void makeBenchmarkFromTheBarsContextMenu() {
        Session session;
        QString error;
        QVERIFY2(test::openAndWait(
                     session,
                     QStringLiteral(REACH_DATASETS "/profiles/h200-shapes/dlrm_inference.json.gz"),
                     &error),
                 qPrintable(error));
        BreakdownView view(&session);
        view.resize(1100, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.model()->rowCount(), 1);
        view.plot()->replot();

        // The menu at a point on the workload's bar, and at one off every bar.
        std::optional<QPoint> onBar, offBar;
        for (int y = 0; y < view.plot()->height() && !(onBar && offBar); y += 4)
            for (int x = 0; x < view.plot()->width() && !(onBar && offBar); x += 4) {
                const bool hit = view.plot()->segmentAt(QPointF(x, y)).has_value();
                if (hit && !onBar)
                    onBar = QPoint(x, y);
                if (!hit && !offBar)
                    offBar = QPoint(x, y);
            }
        QVERIFY(onBar && offBar);
        for (const auto& [pos, enabled] : {std::pair{*onBar, true}, std::pair{*offBar, false}}) {
            QMenu* menu = view.barsContextMenu(pos);
            QAction* make = menu->findChild<QAction*>(QStringLiteral("makeBenchmark"));
            QVERIFY(make);
            QCOMPARE(make->text(), QStringLiteral("Make benchmark from this workload..."));
            QCOMPARE(make->isEnabled(), enabled);
            delete menu;
        }

        QTemporaryDir tmp;
        const QString dir = tmp.path() + QStringLiteral("/bench");
        QString message;
        QVERIFY2(view.makeBenchmark(0, dir, 0.99, &message), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("Wrote 8 problem(s)")), qPrintable(message));
        QFile file(dir + QStringLiteral("/benchmark.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(doc.value(QStringLiteral("profile")).toString(),
                 QStringLiteral("dlrm_inference.json.gz"));
        QCOMPARE(
            doc.value(QStringLiteral("rules")).toObject().value(QStringLiteral("name")).toString(),
            toQString(session.rules().name()));
        const QJsonArray problems = doc.value(QStringLiteral("problems")).toArray();
        QCOMPARE(problems.size(), 8);
        QCOMPARE(problems.at(0).toObject().value(QStringLiteral("operator")).toString(),
                 QStringLiteral("aten::_embedding_bag"));
        for (const QJsonValue& p : problems)
            QVERIFY(QFile::exists(dir + QLatin1Char('/') +
                                  p.toObject().value(QStringLiteral("file")).toString()));

        // Again into the same folder: refused, nothing overwritten.
        QVERIFY(!view.makeBenchmark(0, dir, 0.99, &message));
        QVERIFY2(message.contains(QStringLiteral("empty or new folder")), qPrintable(message));

        // A profile recorded without shapes (the same workload, recorded plain): nothing to
        // make, and why.
        QVERIFY2(
            session.openProject(
                QStringLiteral(REACH_DATASETS "/profiles/h200/dlrm_inference.json.gz"), &error),
            qPrintable(error));
        QVERIFY(test::waitIdle(session));
        QVERIFY(!view.makeBenchmark(0, tmp.path() + QStringLiteral("/other"), 0.9, &message));
        QVERIFY2(message.contains(QStringLiteral("record_shapes")), qPrintable(message));
    }

private:
    Session* m_session = nullptr;
    BreakdownView* m_view = nullptr;
};

QTEST_MAIN(TestBreakdownView)
#include "breakdownview_test.moc"
