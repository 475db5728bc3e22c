package main

import (
	"fmt"
	"html/template"
	"io"
	"slices"

	"github.com/edapp-go/edapp/export/sqldest"
)

// reportPage is the HTML report: one file, no script, no request out of
// it (its styles and SVG charts are inline).
var reportPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Move report: EdApp to SafetyCulture</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1d2433}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em}
table{border-collapse:collapse}td,th{border-bottom:1px solid #dde;padding:3px 10px;text-align:left;vertical-align:top}
td.n{text-align:right}.totals{display:flex;gap:3em;flex-wrap:wrap}
.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
</style></head><body>
<h1>Move report: EdApp to SafetyCulture Training</h1>
<p>Moved at {{with .R.MovedAt}}{{.Format "2006-01-02 15:04 MST"}}{{else}}(unknown){{end}}; generated {{.R.GeneratedAt.Format "2006-01-02 15:04 MST"}}.
Of {{.R.Totals.Completions.EdApp}} EdApp completions, {{.R.Totals.Completions.Carried}} were carried and {{.R.Totals.Completions.Missing}} are missing.</p>
<div class="totals">
<table><tr><th>People</th><th></th></tr>
<tr><td>matched</td><td class="n">{{.R.Totals.People.Matched}}</td></tr>
<tr><td>email changed</td><td class="n">{{.R.Totals.People.EmailChanged}}</td></tr>
<tr><td>EdApp only</td><td class="n">{{.R.Totals.People.EdAppOnly}}</td></tr>
<tr><td>SafetyCulture only</td><td class="n">{{.R.Totals.People.SafetyCultureOnly}}</td></tr>
<tr><td>identity conflict</td><td class="n">{{.R.Totals.People.IdentityConflict}}</td></tr>
<tr><td>probable same person (pairs)</td><td class="n">{{.R.Totals.People.ProbableSamePerson}}</td></tr></table>
<table><tr><th>Courses</th><th></th></tr>
<tr><td>matched</td><td class="n">{{.R.Totals.Courses.Matched}}</td></tr>
<tr><td>matched by title</td><td class="n">{{.R.Totals.Courses.MatchedByTitle}}</td></tr>
<tr><td>EdApp only</td><td class="n">{{.R.Totals.Courses.EdAppOnly}}</td></tr>
<tr><td>SafetyCulture only</td><td class="n">{{.R.Totals.Courses.SafetyCultureOnly}}</td></tr>
<tr><td>identity conflict</td><td class="n">{{.R.Totals.Courses.IdentityConflict}}</td></tr></table>
<table><tr><th>Completions</th><th></th></tr>
<tr><td>in EdApp</td><td class="n">{{.R.Totals.Completions.EdApp}}</td></tr>
<tr><td>carried</td><td class="n">{{.R.Totals.Completions.Carried}}</td></tr>
<tr><td>missing</td><td class="n">{{.R.Totals.Completions.Missing}}</td></tr>
<tr><td>date changed</td><td class="n">{{.R.Totals.Completions.DateChanged}}</td></tr>
<tr><td>score lost</td><td class="n">{{.R.Totals.Completions.ScoreLost}}</td></tr>
<tr><td>completed after the move</td><td class="n">{{.R.Totals.Completions.CompletedAfterMove}}</td></tr>
<tr><td>SafetyCulture only</td><td class="n">{{.R.Totals.Completions.SafetyCultureOnly}}</td></tr></table>
</div>
<h2>Differences by category</h2>
<svg role="img" aria-label="differences by category" width="760" height="{{.CategoriesHeight}}" xmlns="http://www.w3.org/2000/svg">
{{range $i, $b := .Categories}}<text x="230" y="{{$b.Y}}" text-anchor="end" dy="14">{{$b.Label}}</text>
<rect x="240" y="{{$b.Y}}" width="{{$b.Width}}" height="18" fill="{{if $b.Loss}}#d9534f{{else}}#5b8def{{end}}"/>
<text x="{{$b.End}}" y="{{$b.Y}}" dx="6" dy="14">{{$b.Count}}</text>
{{end}}</svg>
<h2>Completions per course</h2>
<p class="key"><span style="background:#f0ad4e"></span>EdApp<span style="background:#5b8def"></span>SafetyCulture<span style="background:#5cb85c"></span>carried</p>
<svg role="img" aria-label="completions per course in each service" width="760" height="{{.CoursesHeight}}" xmlns="http://www.w3.org/2000/svg">
{{range .CourseBars}}<text x="230" y="{{.Y}}" text-anchor="end" dy="12">{{.Label}}</text>
<rect x="240" y="{{.Y}}" width="{{.EdApp}}" height="8" fill="#f0ad4e"/><rect x="240" y="{{.Y2}}" width="{{.SC}}" height="8" fill="#5b8def"/><rect x="240" y="{{.Y3}}" width="{{.Carried}}" height="8" fill="#5cb85c"/>
<text x="{{.End}}" y="{{.Y}}" dx="6" dy="16">{{.Text}}</text>
{{end}}</svg>
<h2>Per course</h2>
<table><tr><th>course</th><th>EdApp</th><th>carried</th><th>missing</th><th>SafetyCulture</th></tr>
{{range .R.Courses}}<tr><td>{{with .Title}}{{.}}{{else}}{{.EdAppID}}{{end}}</td><td class="n">{{.EdAppCompletions}}</td><td class="n">{{.Carried}}</td><td class="n">{{.Missing}}</td><td class="n">{{.SafetyCultureCompletions}}</td></tr>
{{end}}</table>
<h2>Differences ({{len .R.Differences}})</h2>
<table><tr><th>category</th><th>cause</th><th>person</th><th>course</th><th>EdApp</th><th>SafetyCulture</th></tr>
{{range .Rows}}<tr><td>{{.Category}}</td><td>{{.Cause}}</td><td>{{.Person}}</td><td>{{.Course}}</td><td>{{.EdApp}}</td><td>{{.SC}}</td></tr>
{{end}}</table>
</body></html>
`))

// reportPageData is what the page's template reads.
type reportPageData struct {
	R                               *sqldest.Report
	Categories                      []categoryBar
	CourseBars                      []courseBar
	CategoriesHeight, CoursesHeight int
	Rows                            []reportPageRow
}

type categoryBar struct {
	Label           string
	Count, Y, Width int
	End             int
	Loss            bool
}

type courseBar struct {
	Label, Text        string
	Y, Y2, Y3, End     int
	EdApp, SC, Carried int
}

type reportPageRow struct{ Category, Cause, Person, Course, EdApp, SC string }

// barWidth is the longest bar, in pixels.
const barWidth = 440

func writeReportHTML(w io.Writer, r *sqldest.Report) error {
	data := reportPageData{R: r}
	counts := map[string]int{}
	for _, d := range r.Differences {
		counts[d.Category]++
		c := diffCells(d)
		data.Rows = append(data.Rows, reportPageRow{d.Category, c.cause, c.person, c.course, c.edapp, c.sc})
	}
	most := 1
	for _, n := range counts {
		most = max(most, n)
	}
	for i, cat := range sqldest.Categories() {
		width := counts[cat] * barWidth / most
		data.Categories = append(data.Categories, categoryBar{Label: cat, Count: counts[cat], Y: 4 + i*24, Width: width, End: 240 + width, Loss: sqldest.IsLoss(cat)})
	}
	data.CategoriesHeight = 8 + len(data.Categories)*24
	data.CourseBars, data.CoursesHeight = courseBars(r.Courses)
	return reportPage.Execute(w, data)
}

// courseBars are the courses' bars: EdApp's completions, SafetyCulture's
// and the carried ones, to one scale.
func courseBars(courses []sqldest.CourseReconciliation) ([]courseBar, int) {
	most := 1
	for _, c := range courses {
		most = max(most, c.EdAppCompletions, c.SafetyCultureCompletions)
	}
	var out []courseBar
	for i, c := range slices.Clone(courses) {
		y := 4 + i*34
		scale := func(n int) int { return n * barWidth / most }
		title := firstOf(c.Title, c.EdAppID, c.SafetyCultureID)
		if len([]rune(title)) > 34 {
			title = string([]rune(title)[:33]) + "…"
		}
		out = append(out, courseBar{Label: title, Y: y, Y2: y + 9, Y3: y + 18, EdApp: scale(c.EdAppCompletions), SC: scale(c.SafetyCultureCompletions),
			Carried: scale(c.Carried), End: 240 + scale(max(c.EdAppCompletions, c.SafetyCultureCompletions)),
			Text: fmt.Sprintf("%d / %d / %d", c.EdAppCompletions, c.SafetyCultureCompletions, c.Carried)})
	}
	return out, 8 + len(out)*34
}
