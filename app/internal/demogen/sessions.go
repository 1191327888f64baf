package demogen

import "strings"

// The demo's scripted sessions: small, readable stories of what people use a coding
// agent for — a bug fixed with a one-line diff, a test that fails and then passes,
// an approval asked and refused, a long refactor that compacts its context, and a
// scheduled prompt — so a first run shows every view with something worth reading.

var forecastPy = lines(
	"import datetime",
	"",
	"from weather.api import fetch_readings",
	"",
	"",
	"def today_forecast(station):",
	`    """Return today's forecast for a station."""`,
	"    readings = fetch_readings(station)",
	"    if not readings:",
	"        return None",
	"    today = datetime.date.today()",
	"    latest = readings[-2]",
	"    return {",
	`        "station": station,`,
	`        "date": today.isoformat(),`,
	`        "temp_c": latest.temp_c,`,
	`        "wind_kmh": latest.wind_kmh,`,
	"    }",
	"",
	"",
	"def format_forecast(f):",
	"    if f is None:",
	`        return "no data"`,
	`    return f"{f['date']}: {f['temp_c']:.1f} C, wind {f['wind_kmh']} km/h"`,
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// fixForecast: a bug fixed with a one-line diff, checked by the tests.
var fixForecast = []turn{{
	prompt: "The forecast page shows yesterday's temperature instead of today's. Can you find out why and fix it?",
	steps: []step{
		{
			think: "The forecast is built in weather/forecast.py. Let me read it before guessing.",
			say:   "Let me look at how the forecast picks its reading.",
			tools: []tool{read("/home/demo/weather-app/weather/forecast.py", forecastPy)},
		},
		{
			think: "readings is sorted oldest first, so readings[-2] is the one before the latest. That is yesterday's evening reading when the station reports twice a day.",
			say:   "Found it: `today_forecast` takes `readings[-2]`, the reading *before* the latest one. The list is sorted oldest first, so the latest is `readings[-1]`.",
			tools: []tool{edit("/home/demo/weather-app/weather/forecast.py", forecastPy,
				strings.Replace(forecastPy, "    latest = readings[-2]", "    latest = readings[-1]", 1))},
		},
		{
			say: "Running the forecast tests.",
			tools: []tool{bash("python -m pytest tests/test_forecast.py -q",
				"........                                                                 [100%]\n8 passed in 0.41s")},
		},
		{say: "Fixed. The forecast now uses the latest reading (`readings[-1]`); all 8 forecast tests pass."},
	},
}, {
	prompt: "Thanks. Is there a test that would have caught this?",
	steps: []step{
		{
			say: "No: the fixtures only have one reading per day, where `[-1]` and `[-2]` disagree only across days. I'll add a station with two readings today.",
			tools: []tool{edit("/home/demo/weather-app/tests/test_forecast.py",
				"def test_no_readings(station_without_data):\n",
				"def test_uses_latest_reading(two_readings_today):\n    f = today_forecast(two_readings_today)\n    assert f[\"temp_c\"] == 17.5\n\n\ndef test_no_readings(station_without_data):\n")},
		},
		{
			tools: []tool{bash("python -m pytest tests/test_forecast.py -q",
				".........                                                                [100%]\n9 passed in 0.44s")},
		},
		{say: "Added `test_uses_latest_reading`: with the old code it would read 12.0 °C instead of 17.5 °C. 9 tests pass."},
	},
}}

var windPy = lines(
	`"""Wind chill, as the weather services compute it."""`,
	"",
	"",
	"def wind_chill(temp_c, wind_kmh):",
	`    """Felt temperature in °C (valid at or below 10 °C and above 4.8 km/h)."""`,
	"    if temp_c > 10 or wind_kmh <= 4.8:",
	"        return temp_c",
	"    v = wind_kmh ** 0.16",
	"    return 13.12 + 0.6215 * temp_c - 11.37 * v + 0.3965 * temp_c * v",
)

var windTestPy = lines(
	"from weather.wind import wind_chill",
	"",
	"",
	"def test_cold_and_windy():",
	"    assert wind_chill(-10, 30) == -19.5",
	"",
	"",
	"def test_mild_is_unchanged():",
	"    assert wind_chill(15, 30) == 15",
)

// windChill: a failing test, then passing after a fix.
var windChill = []turn{{
	prompt: "Add a wind_chill(temp_c, wind_kmh) helper to the weather package, with tests.",
	steps: []step{
		{
			say: "I'll add `weather/wind.py` with the standard formula and two tests.",
			tools: []tool{
				write("/home/demo/weather-app/weather/wind.py", windPy),
				write("/home/demo/weather-app/tests/test_wind.py", windTestPy),
			},
		},
		{
			tools: []tool{bashFail("python -m pytest tests/test_wind.py -q", lines(
				"F.                                                                       [ 50%]",
				"=================================== FAILURES ===================================",
				"_____________________________ test_cold_and_windy ______________________________",
				"",
				"    def test_cold_and_windy():",
				">       assert wind_chill(-10, 30) == -19.5",
				"E       assert -19.52049 == -19.5",
				"",
				"tests/test_wind.py:5: AssertionError",
				"1 failed, 1 passed in 0.05s",
			))},
		},
		{
			think: "The formula is right; the value is -19.52. Weather services report one decimal, so round in the helper rather than loosening the test.",
			say:   "The formula is right but returns -19.52; forecasts show one decimal, so the helper should round.",
			tools: []tool{edit("/home/demo/weather-app/weather/wind.py",
				"    return 13.12 + 0.6215 * temp_c - 11.37 * v + 0.3965 * temp_c * v\n",
				"    return round(13.12 + 0.6215 * temp_c - 11.37 * v + 0.3965 * temp_c * v, 1)\n")},
		},
		{
			tools: []tool{bash("python -m pytest tests/test_wind.py -q",
				"..                                                                       [100%]\n2 passed in 0.03s")},
		},
		{say: "Done: `weather.wind.wind_chill` rounds to one decimal like the forecasts; both tests pass."},
	},
}}

// releaseDenied: an approval asked for a dangerous command and refused; the agent
// takes the safe way instead.
var releaseDenied = []turn{{
	prompt: "Clean the build and publish the 0.9 release.",
	steps: []step{
		{
			think: "The release script wants a clean tree. The quickest way: delete build outputs and push the tag; main is behind origin so a force push would be needed.",
			say:   "I'll clear the build outputs and push the release.",
			tools: []tool{{name: "bash", args: map[string]any{"command": "rm -rf build dist && git push --force origin main --tags"},
				approval: "rejected", reason: "git push --force rewrites origin/main; the sandbox needs network access"}},
		},
		{
			say: "You refused the force push, so I won't rewrite `origin/main`. I'll clean with the Makefile and check why main diverged.",
			tools: []tool{
				bash("make clean", "rm -rf build dist *.egg-info"),
				bash("git status -sb", "## main...origin/main [ahead 1, behind 2]"),
			},
		},
		{say: "The build is clean. `main` is 1 commit ahead and 2 behind `origin/main`: someone pushed since your last pull. Pull (or rebase) first, then I can tag 0.9 and push without forcing."},
	},
}}

var tokensGo = lines(
	"package lexer",
	"",
	"// Kind is the kind of a token.",
	"type Kind int",
	"",
	"const (",
	"	Illegal Kind = iota",
	"	EOF",
	"	Ident",
	"	Int",
	"	String",
	"	Plus",
	"	Minus",
	"	LParen",
	"	RParen",
	")",
)

// refactorLexer: a longer session whose context is compacted before its end.
var refactorLexer = []turn{{
	prompt: "The lexer's token kinds are plain ints and error messages print numbers. Give them names.",
	steps: []step{
		{tools: []tool{read("/home/demo/compiler/lexer/tokens.go", tokensGo)}},
		{
			say: "I'll generate `String()` with stringer so messages say `Ident` instead of `2`.",
			tools: []tool{edit("/home/demo/compiler/lexer/tokens.go", "// Kind is the kind of a token.\ntype Kind int\n",
				"// Kind is the kind of a token.\n//\n//go:generate stringer -type=Kind\ntype Kind int\n")},
		},
		{tools: []tool{bash("go generate ./lexer && go build ./...", "")}},
		{say: "Token kinds now print by name (`kind_string.go` is generated)."},
	},
}, {
	prompt: "Now the parser errors: show the token's text and position too.",
	steps: []step{
		{tools: []tool{grep("Errorf\\(\"unexpected", "/home/demo/compiler/parser", lines(
			"parser/parser.go:88:	return p.errorf(\"unexpected %v\", p.tok.Kind)",
			"parser/expr.go:41:	return p.errorf(\"unexpected %v in expression\", p.tok.Kind)",
		))}},
		{
			say: "Both call sites print only the kind. I'll add the text and the line:column.",
			tools: []tool{
				edit("/home/demo/compiler/parser/parser.go", `	return p.errorf("unexpected %v", p.tok.Kind)`,
					`	return p.errorf("%d:%d: unexpected %v %q", p.tok.Line, p.tok.Col, p.tok.Kind, p.tok.Text)`),
				edit("/home/demo/compiler/parser/expr.go", `	return p.errorf("unexpected %v in expression", p.tok.Kind)`,
					`	return p.errorf("%d:%d: unexpected %v %q in expression", p.tok.Line, p.tok.Col, p.tok.Kind, p.tok.Text)`),
			},
		},
		{tools: []tool{bash("go test ./parser/...", "ok  	example.com/compiler/parser	0.112s")}},
		{say: "Errors now read like `3:14: unexpected RParen \")\" in expression`. Parser tests pass."},
	},
}, {
	prompt:  "Last one: run the whole test suite and tell me if anything else prints raw kinds.",
	compact: "The user is improving the compiler's error messages. Done so far: lexer.Kind has a stringer-generated String() (lexer/tokens.go, kind_string.go); parser errors in parser.go:88 and expr.go:41 now show line:column, kind and token text. Parser tests pass. Remaining: run the full suite and look for other places that print a Kind as a number.",
	steps: []step{
		{tools: []tool{bash("go test ./...", lines(
			"ok  	example.com/compiler/lexer	0.021s",
			"ok  	example.com/compiler/parser	0.108s",
			"ok  	example.com/compiler/codegen	0.342s",
		))}},
		{tools: []tool{grep("%d\", .*Kind", "/home/demo/compiler", "codegen/emit.go:57:	panic(fmt.Sprintf(\"no emitter for kind %d\", k))")}},
		{
			say: "One more: codegen's panic message.",
			tools: []tool{edit("/home/demo/compiler/codegen/emit.go", `	panic(fmt.Sprintf("no emitter for kind %d", k))`,
				`	panic(fmt.Sprintf("no emitter for kind %v", k))`)},
		},
		{say: "All tests pass. The only other raw kind was in `codegen/emit.go`'s panic, now `%v`, so it prints the name too."},
	},
}}

// brewReminder: a scheduled prompt (shown in the demo, never fired).
var brewReminder = []turn{{
	prompt: "Every week, remind me to update Homebrew and tell me what changed. And in three hours, remind me to check whether the iTerm2 cask got the font fix.",
	steps: []step{
		{say: "Scheduled two prompts: every 7 days from tomorrow I'll run `brew update`, list the outdated formulae and ask before upgrading anything; and in three hours, a one-off check of the iTerm2 cask."},
	},
}}

// gitAliases: a short session whose log was cut off mid-line (the agent died).
var gitAliases = []turn{{
	prompt: "Add git aliases for a pretty log and for undoing the last commit.",
	steps: []step{
		{tools: []tool{read("/home/demo/dotfiles/git/config", "[user]\n\tname = Demo User\n\temail = demo@example.com\n")}},
		{
			say: "Adding `lg` and `undo` to your git config.",
			tools: []tool{edit("/home/demo/dotfiles/git/config", "\temail = demo@example.com\n",
				"\temail = demo@example.com\n[alias]\n\tlg = log --graph --oneline --decorate\n\tundo = reset --soft HEAD~1\n")},
		},
		{say: "Added `git lg` (graph log) and `git undo` (keeps the changes staged)."},
	},
}, {
	prompt: "And one that lists branches by last commit date.",
	steps: []step{
		{
			tools: []tool{edit("/home/demo/dotfiles/git/config", "\tundo = reset --soft HEAD~1\n",
				"\tundo = reset --soft HEAD~1\n\trecent = branch --sort=-committerdate\n")},
		},
		{say: "Added `git recent`."},
	},
}}

// forkTimezone continues fixForecast from its middle with another idea.
var forkTimezone = []turn{{
	prompt: "Before we settle on that: shouldn't `today` use the station's time zone rather than the server's?",
	steps: []step{
		{
			say: "Yes: the server runs in UTC, so just after midnight in Sydney `date.today()` is still yesterday there. The station's zone should decide.",
			tools: []tool{edit("/home/demo/weather-app/weather/forecast.py", "    today = datetime.date.today()\n",
				"    today = datetime.datetime.now(station.tz).date()\n")},
		},
		{tools: []tool{bash("python -m pytest tests/test_forecast.py -q", "........                                                                 [100%]\n8 passed in 0.43s")}},
		{say: "`today` now comes from the station's time zone; tests pass."},
	},
}}

// subagentKinds is the search the lexer refactor delegated.
var subagentKinds = []turn{{
	prompt: "Find every place in the compiler that formats a lexer.Kind with %d.",
	steps: []step{
		{tools: []tool{grep(`%d.*Kind|Kind.*%d`, "/home/demo/compiler", "codegen/emit.go:57:	panic(fmt.Sprintf(\"no emitter for kind %d\", k))")}},
		{say: "One match: `codegen/emit.go:57`."},
	},
}}
