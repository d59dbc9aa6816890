#pragma once

#include <QDialog>
#include <QString>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/records/recordimportgeneric.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QTableWidget;

namespace reach {

// Asks which column of a records file in an unknown shape holds each record field, as
// `reach-cli speedups FILE --map FIELD=COLUMN` does on the command line. Shows the first rows as
// they would be read and the statistics they would give (core's previewMapping: importMapped and
// computeGroupedStats, the CLI's own functions); an invalid mapping shows the reader's one-line
// error and disables OK. The mapping starts as the one last accepted for a file of the same
// shape, else as core's guess from the column names.
class MappingDialog : public QDialog {
    Q_OBJECT
public:
    explicit MappingDialog(const QString& path, QWidget* parent = nullptr);

    ColumnMapping mapping() const;  // as the combo boxes say now
    QString path() const { return m_path; }
    QString error() const { return m_errorText; }     // empty while the mapping reads
    bool remembered() const { return m_remembered; }  // pre-filled from a past import

    // Sets one field's column ("" for none) or the time unit, as the user would.
    void setField(const QString& field, const QString& column);
    void setTimeUnit(const QString& unit);

    void accept() override;  // remembers the mapping for this shape, then closes

    // The mapping accepted last for files whose columns are `columns` (QSettings, by shapeKey).
    static std::optional<ColumnMapping> rememberedMapping(const std::vector<std::string>& columns);

private:
    void updatePreview();
    void fill(const ColumnMapping& mapping);

    QString m_path;
    std::vector<std::string> m_columns;
    std::map<std::string, QComboBox*> m_fields;  // record field -> its column box
    QComboBox* m_timeUnit = nullptr;
    QTableWidget* m_preview = nullptr;
    QLabel* m_stats = nullptr;
    QLabel* m_error = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    QString m_errorText;
    bool m_remembered = false;
    bool m_filling = false;
};

}  // namespace reach
