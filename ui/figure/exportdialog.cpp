#include "ui/figure/exportdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFontComboBox>
#include <QFormLayout>
#include <QSettings>
#include <QSpinBox>

#include "ui/figure/figureexporter.h"

namespace reach {

namespace {
enum Preset { SingleColumn = 0, DoubleColumn = 1, Custom = 2 };
}

void ExportDialog::loadSettings(FigureOptions& options) {
    QSettings s;
    options.widthIn = s.value(QStringLiteral("export/widthInches"), 7.0).toDouble();
    options.heightIn = s.value(QStringLiteral("export/heightInches"), 0.0).toDouble();
    options.dpi = s.value(QStringLiteral("export/dpi"), 300).toInt();
    options.style.fontFamily =
        s.value(QStringLiteral("export/fontFamily"), options.style.fontFamily).toString();
    options.style.fontPt =
        s.value(QStringLiteral("export/fontPt"), options.style.fontPt).toDouble();
}

ExportDialog::ExportDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Figure settings"));
    FigureOptions current;
    loadSettings(current);

    m_preset = new QComboBox(this);
    m_preset->addItems({tr("Single column (3.5 in)"), tr("Double column (7 in)"), tr("Custom")});
    m_width = new QDoubleSpinBox(this);
    m_width->setRange(1.0, 20.0);
    m_width->setDecimals(2);
    m_width->setSuffix(tr(" in"));
    m_width->setValue(current.widthIn);
    m_height = new QDoubleSpinBox(this);
    m_height->setRange(0.0, 20.0);
    m_height->setDecimals(2);
    m_height->setSuffix(tr(" in"));
    m_height->setSpecialValueText(tr("automatic"));
    m_height->setValue(current.heightIn);
    m_dpi = new QSpinBox(this);
    m_dpi->setRange(72, 1200);
    m_dpi->setSuffix(tr(" dpi"));
    m_dpi->setValue(current.dpi);
    m_font = new QFontComboBox(this);
    m_font->setCurrentFont(QFont(current.style.fontFamily));
    m_fontPt = new QDoubleSpinBox(this);
    m_fontPt->setRange(4.0, 24.0);
    m_fontPt->setDecimals(1);
    m_fontPt->setSuffix(tr(" pt"));
    m_fontPt->setValue(current.style.fontPt);
    m_preset->setCurrentIndex(current.widthIn == 3.5   ? SingleColumn
                              : current.widthIn == 7.0 ? DoubleColumn
                                                       : Custom);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_preset, &QComboBox::activated, this, &ExportDialog::onPreset);
    connect(m_width, &QDoubleSpinBox::valueChanged, this, [this](double w) {
        m_preset->setCurrentIndex(w == 3.5 ? SingleColumn : w == 7.0 ? DoubleColumn : Custom);
    });

    auto* form = new QFormLayout(this);
    form->addRow(tr("Size:"), m_preset);
    form->addRow(tr("Width:"), m_width);
    form->addRow(tr("Height:"), m_height);
    form->addRow(tr("PNG resolution:"), m_dpi);
    form->addRow(tr("Font:"), m_font);
    form->addRow(tr("Font size:"), m_fontPt);
    form->addRow(buttons);
}

void ExportDialog::onPreset(int index) {
    if (index == SingleColumn)
        m_width->setValue(3.5);
    else if (index == DoubleColumn)
        m_width->setValue(7.0);
}

FigureOptions ExportDialog::options() const {
    FigureOptions o;
    o.widthIn = m_width->value();
    o.heightIn = m_height->value();
    o.dpi = m_dpi->value();
    o.style.fontFamily = m_font->currentFont().family();
    o.style.fontPt = m_fontPt->value();
    return o;
}

void ExportDialog::saveSettings() const {
    const FigureOptions o = options();
    QSettings s;
    s.setValue(QStringLiteral("export/widthInches"), o.widthIn);
    s.setValue(QStringLiteral("export/heightInches"), o.heightIn);
    s.setValue(QStringLiteral("export/dpi"), o.dpi);
    s.setValue(QStringLiteral("export/fontFamily"), o.style.fontFamily);
    s.setValue(QStringLiteral("export/fontPt"), o.style.fontPt);
}

}  // namespace reach
