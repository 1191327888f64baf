export namespace apikey {
	
	export class Info {
	    name: string;
	    fingerprint: string;
	    // Go type: time
	    created: any;
	    // Go type: time
	    last_used?: any;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.fingerprint = source["fingerprint"];
	        this.created = this.convertValues(source["created"], null);
	        this.last_used = this.convertValues(source["last_used"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class NewKey {
	    key: string;
	    info: Info;
	
	    static createFrom(source: any = {}) {
	        return new NewKey(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.info = this.convertValues(source["info"], Info);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace app {
	
	export class ExportFile {
	    name: string;
	    mime: string;
	    download?: string;
	    path?: string;
	    cancelled?: boolean;
	    bytes: number;
	    redaction?: redact.Summary;
	
	    static createFrom(source: any = {}) {
	        return new ExportFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.mime = source["mime"];
	        this.download = source["download"];
	        this.path = source["path"];
	        this.cancelled = source["cancelled"];
	        this.bytes = source["bytes"];
	        this.redaction = this.convertValues(source["redaction"], redact.Summary);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ExportOptions {
	    format: string;
	    redact: boolean;
	    names?: string[];
	    turns?: string;
	    around?: number;
	    context?: number;
	    sessions?: string[];
	
	    static createFrom(source: any = {}) {
	        return new ExportOptions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.format = source["format"];
	        this.redact = source["redact"];
	        this.names = source["names"];
	        this.turns = source["turns"];
	        this.around = source["around"];
	        this.context = source["context"];
	        this.sessions = source["sessions"];
	    }
	}
	export class ExportSelection {
	    query: string;
	    sessions: string[];
	
	    static createFrom(source: any = {}) {
	        return new ExportSelection(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.query = source["query"];
	        this.sessions = source["sessions"];
	    }
	}
	export class FollowStatus {
	    on: boolean;
	    off?: string;
	    roots: follow.Status[];
	    writing: string[];
	
	    static createFrom(source: any = {}) {
	        return new FollowStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.on = source["on"];
	        this.off = source["off"];
	        this.roots = this.convertValues(source["roots"], follow.Status);
	        this.writing = source["writing"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ImportRun {
	    // Go type: time
	    started_at: any;
	    // Go type: time
	    finished_at?: any;
	    roots: string[];
	    summary?: archive.Summary;
	    gone: string[];
	    error?: string;
	    bundles?: string[];
	
	    static createFrom(source: any = {}) {
	        return new ImportRun(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.started_at = this.convertValues(source["started_at"], null);
	        this.finished_at = this.convertValues(source["finished_at"], null);
	        this.roots = source["roots"];
	        this.summary = this.convertValues(source["summary"], archive.Summary);
	        this.gone = source["gone"];
	        this.error = source["error"];
	        this.bundles = source["bundles"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ImportSettings {
	    lenient_headers: boolean;
	    roots: string[];
	
	    static createFrom(source: any = {}) {
	        return new ImportSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.lenient_headers = source["lenient_headers"];
	        this.roots = source["roots"];
	    }
	}
	export class ImportStatus {
	    roots: string[];
	    running: boolean;
	    last?: ImportRun;
	    files: archive.FileStatus[];
	
	    static createFrom(source: any = {}) {
	        return new ImportStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.roots = source["roots"];
	        this.running = source["running"];
	        this.last = this.convertValues(source["last"], ImportRun);
	        this.files = this.convertValues(source["files"], archive.FileStatus);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Info {
	    version: string;
	    mode: string;
	    data_dir: string;
	    roots: string[];
	    sessions: number;
	    demo: boolean;
	    importing: boolean;
	    self_test: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.mode = source["mode"];
	        this.data_dir = source["data_dir"];
	        this.roots = source["roots"];
	        this.sessions = source["sessions"];
	        this.demo = source["demo"];
	        this.importing = source["importing"];
	        this.self_test = source["self_test"];
	    }
	}
	export class ModelPrice {
	    match: string;
	    input: number;
	    output: number;
	    cache_read: number;
	
	    static createFrom(source: any = {}) {
	        return new ModelPrice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.match = source["match"];
	        this.input = source["input"];
	        this.output = source["output"];
	        this.cache_read = source["cache_read"];
	    }
	}
	export class Prices {
	    models: ModelPrice[];
	
	    static createFrom(source: any = {}) {
	        return new Prices(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.models = this.convertValues(source["models"], ModelPrice);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ScheduleRow {
	    session_id: string;
	    id: string;
	    kind: string;
	    prompt: string;
	    after_seconds?: number;
	    every_seconds?: number;
	    status: string;
	    state: string;
	    // Go type: time
	    scheduled_at: any;
	    // Go type: time
	    next_fire?: any;
	    created_seq: number;
	    // Go type: time
	    created_at: any;
	    dispatch_count: number;
	    // Go type: time
	    last_accepted_at?: any;
	    cwd?: string;
	    override?: string;
	    // Go type: time
	    snoozed_until?: any;
	    logbook_state: string;
	    // Go type: time
	    logbook_next_fire?: any;
	    fire_count: number;
	    last_fire?: archive.ScheduleFire;
	    demo?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ScheduleRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.id = source["id"];
	        this.kind = source["kind"];
	        this.prompt = source["prompt"];
	        this.after_seconds = source["after_seconds"];
	        this.every_seconds = source["every_seconds"];
	        this.status = source["status"];
	        this.state = source["state"];
	        this.scheduled_at = this.convertValues(source["scheduled_at"], null);
	        this.next_fire = this.convertValues(source["next_fire"], null);
	        this.created_seq = source["created_seq"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.dispatch_count = source["dispatch_count"];
	        this.last_accepted_at = this.convertValues(source["last_accepted_at"], null);
	        this.cwd = source["cwd"];
	        this.override = source["override"];
	        this.snoozed_until = this.convertValues(source["snoozed_until"], null);
	        this.logbook_state = source["logbook_state"];
	        this.logbook_next_fire = this.convertValues(source["logbook_next_fire"], null);
	        this.fire_count = source["fire_count"];
	        this.last_fire = this.convertValues(source["last_fire"], archive.ScheduleFire);
	        this.demo = source["demo"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SchedulerConfig {
	    action: string;
	    command: string[];
	    webhook_url: string;
	    timeout_seconds: number;
	    retries: number;
	    backoff_seconds: number;
	    catch_up: string;
	    max_catch_up_hours: number;
	
	    static createFrom(source: any = {}) {
	        return new SchedulerConfig(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.action = source["action"];
	        this.command = source["command"];
	        this.webhook_url = source["webhook_url"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.retries = source["retries"];
	        this.backoff_seconds = source["backoff_seconds"];
	        this.catch_up = source["catch_up"];
	        this.max_catch_up_hours = source["max_catch_up_hours"];
	    }
	}
	export class SearchRequest {
	    query: string;
	    sort: string;
	    limit: number;
	    cursor: string;
	    exhaustive: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SearchRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.query = source["query"];
	        this.sort = source["sort"];
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	        this.exhaustive = source["exhaustive"];
	    }
	}
	export class SessionDetail {
	    session: archive.Session;
	    relations: archive.Relations;
	    files: archive.FileStatus[];
	    problems: format.Problem[];
	    sync?: archive.SessionSync;
	
	    static createFrom(source: any = {}) {
	        return new SessionDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = this.convertValues(source["session"], archive.Session);
	        this.relations = this.convertValues(source["relations"], archive.Relations);
	        this.files = this.convertValues(source["files"], archive.FileStatus);
	        this.problems = this.convertValues(source["problems"], format.Problem);
	        this.sync = this.convertValues(source["sync"], archive.SessionSync);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SyncSettings {
	    auto: boolean;
	    every_minutes: number;
	
	    static createFrom(source: any = {}) {
	        return new SyncSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.auto = source["auto"];
	        this.every_minutes = source["every_minutes"];
	    }
	}
	export class SyncStatus {
	    configured: boolean;
	    remotes: string[];
	    machine: string;
	    settings: SyncSettings;
	    running: boolean;
	    progress: string;
	    // Go type: time
	    last_sync?: any;
	    last?: archivesync.Summary;
	    pending_sessions: number;
	    pending_bytes: number;
	    conflicts: archivesync.Conflict[];
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new SyncStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.configured = source["configured"];
	        this.remotes = source["remotes"];
	        this.machine = source["machine"];
	        this.settings = this.convertValues(source["settings"], SyncSettings);
	        this.running = source["running"];
	        this.progress = source["progress"];
	        this.last_sync = this.convertValues(source["last_sync"], null);
	        this.last = this.convertValues(source["last"], archivesync.Summary);
	        this.pending_sessions = source["pending_sessions"];
	        this.pending_bytes = source["pending_bytes"];
	        this.conflicts = this.convertValues(source["conflicts"], archivesync.Conflict);
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class WebhookSettings {
	    enabled: boolean;
	    addr: string;
	
	    static createFrom(source: any = {}) {
	        return new WebhookSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.addr = source["addr"];
	    }
	}
	export class WebhookStatus {
	    enabled: boolean;
	    addr: string;
	    serving: string;
	    note: string;
	
	    static createFrom(source: any = {}) {
	        return new WebhookStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.addr = source["addr"];
	        this.serving = source["serving"];
	        this.note = source["note"];
	    }
	}

}

export namespace archive {
	
	export class Approval {
	    session_id: string;
	    agent?: string;
	    id: string;
	    toolName: string;
	    callId?: string;
	    reason?: string;
	    turn?: number;
	    asked_seq?: number;
	    // Go type: time
	    asked_at?: any;
	    decided_seq?: number;
	    // Go type: time
	    decided_at?: any;
	    outcome?: string;
	    policy?: string;
	    sandbox_mode?: string;
	    permission_preset?: string;
	
	    static createFrom(source: any = {}) {
	        return new Approval(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.agent = source["agent"];
	        this.id = source["id"];
	        this.toolName = source["toolName"];
	        this.callId = source["callId"];
	        this.reason = source["reason"];
	        this.turn = source["turn"];
	        this.asked_seq = source["asked_seq"];
	        this.asked_at = this.convertValues(source["asked_at"], null);
	        this.decided_seq = source["decided_seq"];
	        this.decided_at = this.convertValues(source["decided_at"], null);
	        this.outcome = source["outcome"];
	        this.policy = source["policy"];
	        this.sandbox_mode = source["sandbox_mode"];
	        this.permission_preset = source["permission_preset"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Compaction {
	    session_id: string;
	    agent?: string;
	    compactionId: string;
	    kind: string;
	    turn?: number;
	    status: string;
	    // Go type: time
	    started_at?: any;
	    // Go type: time
	    ended_at?: any;
	    start_seq?: number;
	    summary_seq?: number;
	    replace_seq?: number;
	    end_seq?: number;
	    summary?: string;
	    shadowed_start?: number;
	    shadowed_end?: number;
	    shadowedSeqs: number[];
	    shadowed_tokens?: number;
	    provider?: string;
	    model?: string;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new Compaction(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.agent = source["agent"];
	        this.compactionId = source["compactionId"];
	        this.kind = source["kind"];
	        this.turn = source["turn"];
	        this.status = source["status"];
	        this.started_at = this.convertValues(source["started_at"], null);
	        this.ended_at = this.convertValues(source["ended_at"], null);
	        this.start_seq = source["start_seq"];
	        this.summary_seq = source["summary_seq"];
	        this.replace_seq = source["replace_seq"];
	        this.end_seq = source["end_seq"];
	        this.summary = source["summary"];
	        this.shadowed_start = source["shadowed_start"];
	        this.shadowed_end = source["shadowed_end"];
	        this.shadowedSeqs = source["shadowedSeqs"];
	        this.shadowed_tokens = source["shadowed_tokens"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FileEdit {
	    seq: number;
	    turn?: number;
	    call_id: string;
	    tool: string;
	    path: string;
	    op: string;
	    old?: string;
	    new: string;
	    insert_line?: number;
	    replace_all?: boolean;
	    failed: boolean;
	    pending: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FileEdit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.turn = source["turn"];
	        this.call_id = source["call_id"];
	        this.tool = source["tool"];
	        this.path = source["path"];
	        this.op = source["op"];
	        this.old = source["old"];
	        this.new = source["new"];
	        this.insert_line = source["insert_line"];
	        this.replace_all = source["replace_all"];
	        this.failed = source["failed"];
	        this.pending = source["pending"];
	    }
	}
	export class FileReport {
	    path: string;
	    session_id: string;
	    verdict: string;
	    error?: format.Problem;
	    warnings: format.Problem[];
	    records: number;
	    logical_events: number;
	    last_seq: number;
	    changed: boolean;
	    action: string;
	    bytes: number;
	    agent?: string;
	    format?: string;
	
	    static createFrom(source: any = {}) {
	        return new FileReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.session_id = source["session_id"];
	        this.verdict = source["verdict"];
	        this.error = this.convertValues(source["error"], format.Problem);
	        this.warnings = this.convertValues(source["warnings"], format.Problem);
	        this.records = source["records"];
	        this.logical_events = source["logical_events"];
	        this.last_seq = source["last_seq"];
	        this.changed = source["changed"];
	        this.action = source["action"];
	        this.bytes = source["bytes"];
	        this.agent = source["agent"];
	        this.format = source["format"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FileStatus {
	    path: string;
	    session_id: string;
	    verdict: string;
	    error_kind?: string;
	    error_line?: number;
	    error_offset?: number;
	    error_message?: string;
	    warnings: number;
	    records: number;
	    events: number;
	    size: number;
	    compressed: boolean;
	    gone: boolean;
	    duplicate: boolean;
	    // Go type: time
	    first_seen: any;
	    // Go type: time
	    last_import: any;
	
	    static createFrom(source: any = {}) {
	        return new FileStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.session_id = source["session_id"];
	        this.verdict = source["verdict"];
	        this.error_kind = source["error_kind"];
	        this.error_line = source["error_line"];
	        this.error_offset = source["error_offset"];
	        this.error_message = source["error_message"];
	        this.warnings = source["warnings"];
	        this.records = source["records"];
	        this.events = source["events"];
	        this.size = source["size"];
	        this.compressed = source["compressed"];
	        this.gone = source["gone"];
	        this.duplicate = source["duplicate"];
	        this.first_seen = this.convertValues(source["first_seen"], null);
	        this.last_import = this.convertValues(source["last_import"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Summary {
	    files: number;
	    ok: number;
	    recovered: number;
	    corrupt: number;
	    unsupported: number;
	    failed: number;
	    changed: number;
	    unchanged: number;
	    events: number;
	    bytes: number;
	
	    static createFrom(source: any = {}) {
	        return new Summary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.files = source["files"];
	        this.ok = source["ok"];
	        this.recovered = source["recovered"];
	        this.corrupt = source["corrupt"];
	        this.unsupported = source["unsupported"];
	        this.failed = source["failed"];
	        this.changed = source["changed"];
	        this.unchanged = source["unchanged"];
	        this.events = source["events"];
	        this.bytes = source["bytes"];
	    }
	}
	export class ImportReport {
	    files: FileReport[];
	    gone: string[];
	    summary: Summary;
	
	    static createFrom(source: any = {}) {
	        return new ImportReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.files = this.convertValues(source["files"], FileReport);
	        this.gone = source["gone"];
	        this.summary = this.convertValues(source["summary"], Summary);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Message {
	    session_id: string;
	    seq: number;
	    // Go type: time
	    time: any;
	    turn?: number;
	    step?: number;
	    role: string;
	    kind: string;
	    source_kind?: string;
	    plugin?: string;
	    text: string;
	    reasoning?: string;
	    model?: string;
	    surface: string;
	    shadowed_by?: number;
	    interrupted?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Message(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.time = this.convertValues(source["time"], null);
	        this.turn = source["turn"];
	        this.step = source["step"];
	        this.role = source["role"];
	        this.kind = source["kind"];
	        this.source_kind = source["source_kind"];
	        this.plugin = source["plugin"];
	        this.text = source["text"];
	        this.reasoning = source["reasoning"];
	        this.model = source["model"];
	        this.surface = source["surface"];
	        this.shadowed_by = source["shadowed_by"];
	        this.interrupted = source["interrupted"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionRef {
	    id: string;
	    title: string;
	    origin?: string;
	    delegation_depth: number;
	    // Go type: time
	    created_at: any;
	    health: string;
	
	    static createFrom(source: any = {}) {
	        return new SessionRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.origin = source["origin"];
	        this.delegation_depth = source["delegation_depth"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.health = source["health"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Relations {
	    parent_id?: string;
	    parent?: SessionRef;
	    children: SessionRef[];
	
	    static createFrom(source: any = {}) {
	        return new Relations(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.parent_id = source["parent_id"];
	        this.parent = this.convertValues(source["parent"], SessionRef);
	        this.children = this.convertValues(source["children"], SessionRef);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ScheduleFire {
	    id: number;
	    session_id: string;
	    schedule_id: string;
	    // Go type: time
	    fired_at: any;
	    // Go type: time
	    target_at: any;
	    trigger: string;
	    action: string;
	    outcome: string;
	    error?: string;
	    attempts: number;
	    settles: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ScheduleFire(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session_id = source["session_id"];
	        this.schedule_id = source["schedule_id"];
	        this.fired_at = this.convertValues(source["fired_at"], null);
	        this.target_at = this.convertValues(source["target_at"], null);
	        this.trigger = source["trigger"];
	        this.action = source["action"];
	        this.outcome = source["outcome"];
	        this.error = source["error"];
	        this.attempts = source["attempts"];
	        this.settles = source["settles"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Tokens {
	    input: number;
	    output: number;
	    reasoning: number;
	    cache_read: number;
	
	    static createFrom(source: any = {}) {
	        return new Tokens(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.input = source["input"];
	        this.output = source["output"];
	        this.reasoning = source["reasoning"];
	        this.cache_read = source["cache_read"];
	    }
	}
	export class Session {
	    id: string;
	    agent: string;
	    title: string;
	    title_source?: string;
	    cwd?: string;
	    project: string;
	    parent_session?: string;
	    seed_length?: number;
	    origin?: string;
	    delegation_depth: number;
	    agent_preset?: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    models: string[];
	    records: number;
	    events: number;
	    last_seq: number;
	    turns: number;
	    messages: number;
	    tool_calls: number;
	    tokens: Tokens;
	    health: string;
	    approval_policy?: string;
	    sandbox_mode?: string;
	    path?: string;
	
	    static createFrom(source: any = {}) {
	        return new Session(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.agent = source["agent"];
	        this.title = source["title"];
	        this.title_source = source["title_source"];
	        this.cwd = source["cwd"];
	        this.project = source["project"];
	        this.parent_session = source["parent_session"];
	        this.seed_length = source["seed_length"];
	        this.origin = source["origin"];
	        this.delegation_depth = source["delegation_depth"];
	        this.agent_preset = source["agent_preset"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.models = source["models"];
	        this.records = source["records"];
	        this.events = source["events"];
	        this.last_seq = source["last_seq"];
	        this.turns = source["turns"];
	        this.messages = source["messages"];
	        this.tool_calls = source["tool_calls"];
	        this.tokens = this.convertValues(source["tokens"], Tokens);
	        this.health = source["health"];
	        this.approval_policy = source["approval_policy"];
	        this.sandbox_mode = source["sandbox_mode"];
	        this.path = source["path"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionGist {
	    id: string;
	    last_prompt: string;
	    files_changed: number;
	    tool_errors: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionGist(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.last_prompt = source["last_prompt"];
	        this.files_changed = source["files_changed"];
	        this.tool_errors = source["tool_errors"];
	    }
	}
	
	export class SessionSpan {
	    id: string;
	    title: string;
	    project: string;
	    duration_ms: number;
	    turns: number;
	    tool_calls: number;
	    tokens: Tokens;
	
	    static createFrom(source: any = {}) {
	        return new SessionSpan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.project = source["project"];
	        this.duration_ms = source["duration_ms"];
	        this.turns = source["turns"];
	        this.tool_calls = source["tool_calls"];
	        this.tokens = this.convertValues(source["tokens"], Tokens);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StateEntry {
	    type: string;
	    seq: number;
	    time: number;
	    marker?: format.Marker;
	
	    static createFrom(source: any = {}) {
	        return new StateEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.seq = source["seq"];
	        this.time = source["time"];
	        this.marker = this.convertValues(source["marker"], format.Marker);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionState {
	    session_id: string;
	    seq: number;
	    entries: StateEntry[];
	    schedules: format.Schedule[];
	
	    static createFrom(source: any = {}) {
	        return new SessionState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.entries = this.convertValues(source["entries"], StateEntry);
	        this.schedules = this.convertValues(source["schedules"], format.Schedule);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SyncVersion {
	    machine: string;
	    local?: boolean;
	    length: number;
	    sha256: string;
	    path?: string;
	
	    static createFrom(source: any = {}) {
	        return new SyncVersion(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.machine = source["machine"];
	        this.local = source["local"];
	        this.length = source["length"];
	        this.sha256 = source["sha256"];
	        this.path = source["path"];
	    }
	}
	export class SessionSync {
	    session_id: string;
	    machine: string;
	    conflict?: SyncVersion[];
	
	    static createFrom(source: any = {}) {
	        return new SessionSync(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.machine = source["machine"];
	        this.conflict = this.convertValues(source["conflict"], SyncVersion);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class ToolCall {
	    session_id: string;
	    call_id: string;
	    name: string;
	    arguments: string;
	    turn?: number;
	    step?: number;
	    call_seq: number;
	    // Go type: time
	    call_time: any;
	    result_seq?: number;
	    // Go type: time
	    result_time?: any;
	    output?: string;
	    is_error: boolean;
	    error_name?: string;
	    error_code?: string;
	
	    static createFrom(source: any = {}) {
	        return new ToolCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.call_id = source["call_id"];
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	        this.turn = source["turn"];
	        this.step = source["step"];
	        this.call_seq = source["call_seq"];
	        this.call_time = this.convertValues(source["call_time"], null);
	        this.result_seq = source["result_seq"];
	        this.result_time = this.convertValues(source["result_time"], null);
	        this.output = source["output"];
	        this.is_error = source["is_error"];
	        this.error_name = source["error_name"];
	        this.error_code = source["error_code"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TimelineItem {
	    seq: number;
	    type: string;
	    kind: string;
	    // Go type: time
	    time: any;
	    turn?: number;
	    step?: number;
	    surface: string;
	    shadowed_by?: number;
	    inherited?: boolean;
	    message?: Message;
	    tool?: ToolCall;
	    approval?: Approval;
	    compaction?: Compaction;
	    marker?: format.Marker;
	    synthetic?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TimelineItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.type = source["type"];
	        this.kind = source["kind"];
	        this.time = this.convertValues(source["time"], null);
	        this.turn = source["turn"];
	        this.step = source["step"];
	        this.surface = source["surface"];
	        this.shadowed_by = source["shadowed_by"];
	        this.inherited = source["inherited"];
	        this.message = this.convertValues(source["message"], Message);
	        this.tool = this.convertValues(source["tool"], ToolCall);
	        this.approval = this.convertValues(source["approval"], Approval);
	        this.compaction = this.convertValues(source["compaction"], Compaction);
	        this.marker = this.convertValues(source["marker"], format.Marker);
	        this.synthetic = source["synthetic"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TimelinePage {
	    session_id: string;
	    items: TimelineItem[];
	    has_before: boolean;
	    has_after: boolean;
	    total: number;
	
	    static createFrom(source: any = {}) {
	        return new TimelinePage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.items = this.convertValues(source["items"], TimelineItem);
	        this.has_before = source["has_before"];
	        this.has_after = source["has_after"];
	        this.total = source["total"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TimelineQuery {
	    after?: number;
	    before?: number;
	    around?: number;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new TimelineQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.after = source["after"];
	        this.before = source["before"];
	        this.around = source["around"];
	        this.limit = source["limit"];
	    }
	}
	
	
	export class ToolUse {
	    name: string;
	    calls: number;
	    errors: number;
	
	    static createFrom(source: any = {}) {
	        return new ToolUse(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.calls = source["calls"];
	        this.errors = source["errors"];
	    }
	}
	export class TurnSummary {
	    turn: number;
	    start_seq: number;
	    end_seq: number;
	    // Go type: time
	    start: any;
	    // Go type: time
	    end: any;
	    prompt: string;
	    tools: number;
	    errors: number;
	    approvals: number;
	    denied: number;
	    items: number;
	
	    static createFrom(source: any = {}) {
	        return new TurnSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.turn = source["turn"];
	        this.start_seq = source["start_seq"];
	        this.end_seq = source["end_seq"];
	        this.start = this.convertValues(source["start"], null);
	        this.end = this.convertValues(source["end"], null);
	        this.prompt = source["prompt"];
	        this.tools = source["tools"];
	        this.errors = source["errors"];
	        this.approvals = source["approvals"];
	        this.denied = source["denied"];
	        this.items = source["items"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class UsageFilter {
	    project: string;
	    since_ms: number;
	    tz_offset_minutes: number;
	
	    static createFrom(source: any = {}) {
	        return new UsageFilter(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.project = source["project"];
	        this.since_ms = source["since_ms"];
	        this.tz_offset_minutes = source["tz_offset_minutes"];
	    }
	}
	export class UsageRow {
	    key: string;
	    model: string;
	    tokens: Tokens;
	    events: number;
	
	    static createFrom(source: any = {}) {
	        return new UsageRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.model = source["model"];
	        this.tokens = this.convertValues(source["tokens"], Tokens);
	        this.events = source["events"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class UsageReport {
	    days: UsageRow[];
	    projects: UsageRow[];
	    totals: Tokens;
	    dated: Tokens;
	    sessions: number;
	    turns: number;
	    tool_calls: number;
	    tool_errors: number;
	    approvals: number;
	    approvals_allowed: number;
	    approvals_denied: number;
	    tools: ToolUse[];
	    longest: SessionSpan[];
	
	    static createFrom(source: any = {}) {
	        return new UsageReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.days = this.convertValues(source["days"], UsageRow);
	        this.projects = this.convertValues(source["projects"], UsageRow);
	        this.totals = this.convertValues(source["totals"], Tokens);
	        this.dated = this.convertValues(source["dated"], Tokens);
	        this.sessions = source["sessions"];
	        this.turns = source["turns"];
	        this.tool_calls = source["tool_calls"];
	        this.tool_errors = source["tool_errors"];
	        this.approvals = source["approvals"];
	        this.approvals_allowed = source["approvals_allowed"];
	        this.approvals_denied = source["approvals_denied"];
	        this.tools = this.convertValues(source["tools"], ToolUse);
	        this.longest = this.convertValues(source["longest"], SessionSpan);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace archivesync {
	
	export class Version {
	    machine: string;
	    local?: boolean;
	    length: number;
	    sha256: string;
	    path?: string;
	
	    static createFrom(source: any = {}) {
	        return new Version(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.machine = source["machine"];
	        this.local = source["local"];
	        this.length = source["length"];
	        this.sha256 = source["sha256"];
	        this.path = source["path"];
	    }
	}
	export class Conflict {
	    session_id: string;
	    versions: Version[];
	
	    static createFrom(source: any = {}) {
	        return new Conflict(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.versions = this.convertValues(source["versions"], Version);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PullReport {
	    machine: string;
	    machines: string[];
	    pulled: number;
	    unchanged: number;
	    behind: number;
	    not_synced: number;
	    dismissed: number;
	    bytes: number;
	    import?: archive.ImportReport;
	    conflicts: Conflict[];
	
	    static createFrom(source: any = {}) {
	        return new PullReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.machine = source["machine"];
	        this.machines = source["machines"];
	        this.pulled = source["pulled"];
	        this.unchanged = source["unchanged"];
	        this.behind = source["behind"];
	        this.not_synced = source["not_synced"];
	        this.dismissed = source["dismissed"];
	        this.bytes = source["bytes"];
	        this.import = this.convertValues(source["import"], archive.ImportReport);
	        this.conflicts = this.convertValues(source["conflicts"], Conflict);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PushReport {
	    machine: string;
	    sessions: number;
	    pushed: number;
	    unchanged: number;
	    from_others: number;
	    not_synced: number;
	    pieces: number;
	    bytes: number;
	    existing: number;
	    kept: number;
	    manifest_seq: number;
	
	    static createFrom(source: any = {}) {
	        return new PushReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.machine = source["machine"];
	        this.sessions = source["sessions"];
	        this.pushed = source["pushed"];
	        this.unchanged = source["unchanged"];
	        this.from_others = source["from_others"];
	        this.not_synced = source["not_synced"];
	        this.pieces = source["pieces"];
	        this.bytes = source["bytes"];
	        this.existing = source["existing"];
	        this.kept = source["kept"];
	        this.manifest_seq = source["manifest_seq"];
	    }
	}
	export class RemoteReport {
	    remote: string;
	    push?: PushReport;
	    pull?: PullReport;
	    bytes_up: number;
	    bytes_down: number;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new RemoteReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.remote = source["remote"];
	        this.push = this.convertValues(source["push"], PushReport);
	        this.pull = this.convertValues(source["pull"], PullReport);
	        this.bytes_up = source["bytes_up"];
	        this.bytes_down = source["bytes_down"];
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Summary {
	    machine: string;
	    pushed: number;
	    pulled: number;
	    bytes_up: number;
	    bytes_down: number;
	    conflicts: number;
	    errors: string[];
	    remotes: RemoteReport[];
	    // Go type: time
	    started: any;
	    // Go type: time
	    finished: any;
	
	    static createFrom(source: any = {}) {
	        return new Summary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.machine = source["machine"];
	        this.pushed = source["pushed"];
	        this.pulled = source["pulled"];
	        this.bytes_up = source["bytes_up"];
	        this.bytes_down = source["bytes_down"];
	        this.conflicts = source["conflicts"];
	        this.errors = source["errors"];
	        this.remotes = this.convertValues(source["remotes"], RemoteReport);
	        this.started = this.convertValues(source["started"], null);
	        this.finished = this.convertValues(source["finished"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace follow {
	
	export class Status {
	    root: string;
	    mode: string;
	    reason?: string;
	    folders: number;
	    // Go type: time
	    since: any;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.root = source["root"];
	        this.mode = source["mode"];
	        this.reason = source["reason"];
	        this.folders = source["folders"];
	        this.since = this.convertValues(source["since"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace format {
	
	export class MarkerField {
	    name: string;
	    value: string;
	
	    static createFrom(source: any = {}) {
	        return new MarkerField(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.value = source["value"];
	    }
	}
	export class TodoItem {
	    content: string;
	    status: string;
	
	    static createFrom(source: any = {}) {
	        return new TodoItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.content = source["content"];
	        this.status = source["status"];
	    }
	}
	export class Marker {
	    label: string;
	    detail?: string;
	    todos?: TodoItem[];
	    status?: string;
	    fields?: MarkerField[];
	
	    static createFrom(source: any = {}) {
	        return new Marker(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.label = source["label"];
	        this.detail = source["detail"];
	        this.todos = this.convertValues(source["todos"], TodoItem);
	        this.status = source["status"];
	        this.fields = this.convertValues(source["fields"], MarkerField);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Problem {
	    kind: string;
	    line: number;
	    offset: number;
	    seq?: number;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Problem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.line = source["line"];
	        this.offset = source["offset"];
	        this.seq = source["seq"];
	        this.message = source["message"];
	    }
	}
	export class Schedule {
	    id: string;
	    kind: string;
	    prompt: string;
	    afterSeconds?: number;
	    everySeconds?: number;
	    // Go type: time
	    scheduledAt: any;
	    createdSeq: number;
	    createdAt: number;
	    status: string;
	    endedSeq?: number;
	    endedAt?: number;
	    endReason?: string;
	    dispatchCount: number;
	    // Go type: time
	    lastAcceptedAt: any;
	    // Go type: time
	    lastOccurrenceAt: any;
	
	    static createFrom(source: any = {}) {
	        return new Schedule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.kind = source["kind"];
	        this.prompt = source["prompt"];
	        this.afterSeconds = source["afterSeconds"];
	        this.everySeconds = source["everySeconds"];
	        this.scheduledAt = this.convertValues(source["scheduledAt"], null);
	        this.createdSeq = source["createdSeq"];
	        this.createdAt = source["createdAt"];
	        this.status = source["status"];
	        this.endedSeq = source["endedSeq"];
	        this.endedAt = source["endedAt"];
	        this.endReason = source["endReason"];
	        this.dispatchCount = source["dispatchCount"];
	        this.lastAcceptedAt = this.convertValues(source["lastAcceptedAt"], null);
	        this.lastOccurrenceAt = this.convertValues(source["lastOccurrenceAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace index {
	
	export class FacetCount {
	    term: string;
	    count: number;
	
	    static createFrom(source: any = {}) {
	        return new FacetCount(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.term = source["term"];
	        this.count = source["count"];
	    }
	}
	export class Facets {
	    kind: FacetCount[];
	    tool: FacetCount[];
	    project: FacetCount[];
	    agent: FacetCount[];
	    month: FacetCount[];
	
	    static createFrom(source: any = {}) {
	        return new Facets(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = this.convertValues(source["kind"], FacetCount);
	        this.tool = this.convertValues(source["tool"], FacetCount);
	        this.project = this.convertValues(source["project"], FacetCount);
	        this.agent = this.convertValues(source["agent"], FacetCount);
	        this.month = this.convertValues(source["month"], FacetCount);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Hit {
	    id: string;
	    session_id: string;
	    seq: number;
	    kind: string;
	    role: string;
	    tool: string;
	    project: string;
	    agent: string;
	    surface: string;
	    // Go type: time
	    time: any;
	    is_error: boolean;
	    score: number;
	    fragments: string[];
	
	    static createFrom(source: any = {}) {
	        return new Hit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.kind = source["kind"];
	        this.role = source["role"];
	        this.tool = source["tool"];
	        this.project = source["project"];
	        this.agent = source["agent"];
	        this.surface = source["surface"];
	        this.time = this.convertValues(source["time"], null);
	        this.is_error = source["is_error"];
	        this.score = source["score"];
	        this.fragments = source["fragments"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Result {
	    total: number;
	    total_exact: boolean;
	    hits: Hit[];
	    facets: Facets;
	    ranked_among?: number;
	    next_cursor: string;
	    took_ms: number;
	    notice?: string;
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.total = source["total"];
	        this.total_exact = source["total_exact"];
	        this.hits = this.convertValues(source["hits"], Hit);
	        this.facets = this.convertValues(source["facets"], Facets);
	        this.ranked_among = source["ranked_among"];
	        this.next_cursor = source["next_cursor"];
	        this.took_ms = source["took_ms"];
	        this.notice = source["notice"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace redact {
	
	export class Decisions {
	    categories?: {[key: string]: boolean};
	    findings?: {[key: string]: boolean};
	
	    static createFrom(source: any = {}) {
	        return new Decisions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.categories = source["categories"];
	        this.findings = source["findings"];
	    }
	}
	export class Finding {
	    id: string;
	    doc: string;
	    category: string;
	    rule: string;
	    start: number;
	    end: number;
	    line: number;
	    masked: string;
	    preview: string;
	    fingerprint: string;
	
	    static createFrom(source: any = {}) {
	        return new Finding(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.doc = source["doc"];
	        this.category = source["category"];
	        this.rule = source["rule"];
	        this.start = source["start"];
	        this.end = source["end"];
	        this.line = source["line"];
	        this.masked = source["masked"];
	        this.preview = source["preview"];
	        this.fingerprint = source["fingerprint"];
	    }
	}
	export class Report {
	    findings: Finding[];
	    counts: {[key: string]: number};
	    docs: number;
	    bytes: number;
	    ruleset: string;
	
	    static createFrom(source: any = {}) {
	        return new Report(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.findings = this.convertValues(source["findings"], Finding);
	        this.counts = source["counts"];
	        this.docs = source["docs"];
	        this.bytes = source["bytes"];
	        this.ruleset = source["ruleset"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Summary {
	    ruleset: string;
	    redacted: {[key: string]: number};
	    distinct: {[key: string]: number};
	    kept: number;
	
	    static createFrom(source: any = {}) {
	        return new Summary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ruleset = source["ruleset"];
	        this.redacted = source["redacted"];
	        this.distinct = source["distinct"];
	        this.kept = source["kept"];
	    }
	}

}

