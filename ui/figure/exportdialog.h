#pragma once

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QFontComboBox;
class QSpinBox;

namespace reach {

struct FigureOptions;

// Size and type settings of "Export figure": presets "single column 3.5 in", "double column
// 7 in" or a custom size, PNG resolution, font family and size in points. Remembered in
// QSettings (export/...) so the next figure of a paper comes out the same.
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportDialog(QWidget* parent = nullptr);

    // Reads the saved settings into options (defaults: double column, 300 dpi, DejaVu Sans 8 pt).
    static void loadSettings(FigureOptions& options);
    FigureOptions options() const;
    void saveSettings() const;

private:
    void onPreset(int index);
    QComboBox* m_preset;
    QDoubleSpinBox* m_width;
    QDoubleSpinBox* m_height;
    QSpinBox* m_dpi;
    QFontComboBox* m_font;
    QDoubleSpinBox* m_fontPt;
};

}  // namespace reach
