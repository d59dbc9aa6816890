#pragma once

#include <QDialog>
#include <QString>
#include <QStringList>

#include <memory>

#include "core/analysis/projection.h"
#include "core/analysis/ruleset.h"

class QLabel;
class QPlainTextEdit;
class QTableWidget;

namespace reach {

struct DistributedRun;

// File > Open a Distributed Run...: the ranks of one run side by side (docs/distributed.md),
// read by core's readRun (what `reach-cli breakdown --ranks` prints) on a worker thread. One
// row per rank (its categories, transfer, wait, overlap, last arrivals, clock offset; the
// critical rank marked), the matched collectives (the straggler and its skew), and for the one
// selected its per-rank arrival, leave and wait; the unmatched ones with why.
class RankRunDialog : public QDialog {
    Q_OBJECT
public:
    explicit RankRunDialog(QWidget* parent = nullptr);
    ~RankRunDialog() override;

    // Reads the run (files, or a folder of them) in the background, each rank classified by
    // `rules` (the open project's: the main window passes them); loaded() or failed() ends it.
    void open(const QStringList& inputs, const RuleSet& rules = RuleSet::builtinDefault());
    // The win rate and median speedup the summary projects the run with (the projection view's;
    // the study's DLRM-Bench pair until set).
    void setProjection(double winRate, double medianSpeedup);

    QTableWidget* ranksTable() const { return m_ranks; }
    QTableWidget* collectivesTable() const { return m_collectives; }
    QTableWidget* perRankTable() const { return m_perRank; }
    QString summary() const;
    QString unmatchedText() const;

signals:
    void loaded();
    void failed(const QString& why);

private:
    void display(std::shared_ptr<const DistributedRun> run);
    void showCollective(int row);

    QLabel* m_summary = nullptr;
    QTableWidget* m_ranks = nullptr;
    QTableWidget* m_collectives = nullptr;
    QTableWidget* m_perRank = nullptr;
    QPlainTextEdit* m_unmatched = nullptr;
    std::shared_ptr<const DistributedRun> m_run;
    int m_generation = 0;  // a later open() wins over an earlier one still reading
    double m_winRate = kDlrmBenchWinRate, m_medianSpeedup = kDlrmBenchMedianSpeedup;
};

}  // namespace reach
