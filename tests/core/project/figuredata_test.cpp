// What the figures plot (core/project/figuredata.h): the numbers the views draw and the CSVs
// hold, with headers that name the plotted quantity.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/projection.h"
#include "core/base/csv.h"
#include "core/project/figuredata.h"
#include "core/project/openplan.h"

namespace reach_test_figuredata_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {
const std::string kDatasets = REACH_DATASETS;
}

TEST(FigureData, BreakdownBarsSplitEachWorkloadIntoItsCategories) {
    const Project p = openInputs(
        {kDatasets + "/profiles/h200/resnet50_inference.json.gz", kDatasets + "/paper/table3.json"},
        std::nullopt);
    ASSERT_EQ(p.workloads.size(), 8u);
    for (const ProjectWorkload& w : p.workloads) {
        const BreakdownBar gpu = breakdownBar(w, false);
        double sum = gpu.unsplit;
        for (double s : gpu.share)
            sum += s;
        EXPECT_NEAR(sum, 1.0, 1e-9) << w.name;
        if (w.published) {
            EXPECT_TRUE(std::isnan(gpu.totalMs));
            // No span to draw it on: nothing is drawn on the wall-clock axis.
            const BreakdownBar span = breakdownBar(w, true);
            EXPECT_TRUE(span.spanUnknown);
            for (double s : span.share)
                EXPECT_EQ(s, 0.0);
            EXPECT_EQ(span.unsplit, 0.0);
        } else {
            const BreakdownBar span = breakdownBar(w, true);
            double busy = span.idle;
            for (double s : span.share)
                busy += s;
            EXPECT_NEAR(busy, 1.0, 1e-9) << w.name;
            EXPECT_NEAR(gpu.share[size_t(Category::Addressable)],
                        w.breakdown->share(Category::Addressable), 1e-12);
        }
    }
    const FigureTable t = breakdownFigureTable(p.workloads, false);
    EXPECT_EQ(t.columns[0], "label");  // what the axis shows; the whole name and origin beside
    EXPECT_EQ(t.columns[3], "library_optimized_share_of_gpu_time");
    EXPECT_EQ(t.rows.size(), 8u);
}

// Issue 40, defect 4: on the wall-clock axis the operator-based bar was a share of GPU time
// (DLRM inference: the name-based bar stopped at 36 %, the operator bar at 100 %). Both bars
// are now on the axis they are drawn on: the operator split scaled onto the busy time and
// divided by the span, as the name-based one.
TEST(FigureData, TheOperatorSplitIsOnTheSameAxisAsTheNameSplit) {
    const Project p =
        openInputs({kDatasets + "/profiles/h200-shapes/dlrm_inference.json.gz"}, std::nullopt);
    ASSERT_EQ(p.workloads.size(), 1u);
    const ProjectWorkload& w = p.workloads[0];
    const Breakdown& b = *w.breakdown;
    ASSERT_TRUE(b.hasOpSplit);
    const BreakdownBar gpu = breakdownBar(w, false), span = breakdownBar(w, true);
    double nameSpan = 0, opSpan = 0, opGpu = 0;
    for (Category c : kCategories) {
        const size_t i = size_t(c);
        nameSpan += span.share[i];
        opSpan += span.opShare[i];
        opGpu += gpu.opShare[i];
        EXPECT_NEAR(span.opShare[i], gpu.opShare[i] * b.busyTimeUs / b.spanUs, 1e-12);
    }
    EXPECT_LE(opGpu, 1.0 + 1e-9);
    EXPECT_LE(opSpan, 1.0 - span.idle + 1e-9);  // never past the busy part of the span
    EXPECT_LT(span.idle, 0.9);
    EXPECT_GT(span.idle, 0.1);  // DLRM's GPU is idle much of the span
    EXPECT_NEAR(nameSpan + span.idle, 1.0, 1e-9);
}

TEST(FigureData, ProjectionTableIsTheFormula) {
    const Project p = openInputs({kDatasets + "/paper/table3.json"}, std::nullopt);
    const FigureTable t = projectionFigureTable(p.workloads, 0.417, 1.552);
    ASSERT_EQ(t.rows.size(), 7u);
    EXPECT_EQ(t.columns[6], "projected_gain_percent");
    // DLRM inference: 0.582 * 0.417 * (1 - 1/1.552) = 8.63 % (the study's Table 3).
    EXPECT_NEAR(std::get<double>(t.rows[6][6]), 8.63, 0.01);
    // The published names, shortened for the axis, whole in "workload".
    EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "R1-Distill-Llama-70B [published, A100]");
    EXPECT_EQ(std::get<std::string>(t.rows[0][1]), "DeepSeek-R1-Distill-Llama-70B inference");
}

TEST(FigureData, HeatMapGridIsTheFormulaAtCellCentres) {
    const ProjectionGrid g = projectionGrid(0.5, 10, 10.0);
    ASSERT_EQ(g.gainPercent.size(), 100u);
    EXPECT_NEAR(g.winRateAt(0), 0.05, 1e-12);
    EXPECT_NEAR(g.medianAt(9), std::pow(10.0, 0.95), 1e-9);
    EXPECT_NEAR(g.at(3, 7),
                100.0 * projectSummary("", 0.5, g.winRateAt(3), g.medianAt(7)).savedShare, 1e-12);
    EXPECT_NEAR(g.maxGainPercent, g.at(9, 9), 1e-12);
}

TEST(FigureData, CsvQuotesWhatNeedsQuotingAndKeepsNumbersExact) {
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    FigureTable t;
    t.columns = {"name", "speedup_x"};
    t.add({std::string("x,y"), 0.1});
    t.add({std::string("nan"), std::nan("")});
    EXPECT_EQ(figureTableCsv(t), "name,speedup_x\n\"x,y\",0.1\nnan,nan\n");
}

// Rows of the same name are told apart on the axis: by their origin, then by the file, then by
// a number; rows that differ keep their plain labels.
TEST(FigureData, RowLabelsTellSameNameRowsApart) {
    std::vector<ProjectWorkload> rows(5);
    rows[0].name = rows[1].name = rows[2].name = rows[3].name = "ResNet-50";
    rows[0].origin = "published, A100";
    rows[0].published = true;
    rows[1].origin = "NVIDIA H200";
    rows[2].origin = rows[3].origin = "NVIDIA H100";
    auto a = std::make_shared<Workload>();
    a->source = "/data/run_a/resnet50.json.gz";
    auto b = std::make_shared<Workload>();
    b->source = "/data/run_b/resnet50.json.gz";
    rows[2].workload = a;
    rows[3].workload = b;
    rows[4].name = "DLRM";
    rows[4].origin = "NVIDIA H100";
    const std::vector<RowLabel> labels = rowLabels(rows);
    ASSERT_EQ(labels.size(), rows.size());
    EXPECT_EQ(labels[0].tag, "published, A100");
    EXPECT_EQ(labels[1].tag, "H200");
    // Same name, same device, same file name: the file does not tell them apart, a number does.
    EXPECT_EQ(labels[2].tag, "H100, resnet50.json.gz");
    EXPECT_EQ(labels[3].tag, "H100, resnet50.json.gz #2");
    EXPECT_EQ(labels[4].tag, "H100");
    for (size_t i = 0; i < labels.size(); ++i) {
        for (size_t j = i + 1; j < labels.size(); ++j)
            EXPECT_FALSE(labels[i].name == labels[j].name && labels[i].tag == labels[j].tag);
    }
}

}  // namespace reach_test_figuredata_test
