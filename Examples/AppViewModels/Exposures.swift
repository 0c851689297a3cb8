import Bindery

// What each view model exposes: the only Bindery code in this module. The view models above are
// written as an app has them; nothing in them was changed for Bindery.

extension TodoListViewModel: ViewModel {
    static var exposure: Exposure<TodoListViewModel> {
        Exposure {
            Field("newTitle", \.newTitle)
            Field("newDue", \.newDue)
            Field("filter", \.filter)
            Output("items", \.items)
            Output("visibleItems", \.visibleItems)
            Output("remainingCount", \.remainingCount)
            Command("add", enabled: \.canAdd) { $0.add() }
            Command("toggle") { (model, item: TodoItem) in model.toggle(item) }
            Command("delete") { (model, item: TodoItem) in model.delete(item) }
            Command("clearCompleted") { $0.clearCompleted() }
        }
    }
}

extension SettingsViewModel: ViewModel {
    static var exposure: Exposure<SettingsViewModel> {
        Exposure {
            Field("distanceUnit", \.distanceUnit)
            Field("appearance", \.appearance)
            Field("unitStyle", \.unitStyle)
            Field("reminderTime", \.reminderTime)
            Field("remindersEnabled", \.remindersEnabled)
            Field("dailyGoal", \.dailyGoal)
            Output("goal", \.goal)
            Output("goalSummary", \.goalSummary)
            Output("lastSaved", \.lastSaved)
            Command("save") { $0.save() }
            Command("resetToDefaults") { $0.resetToDefaults() }
        }
    }
}

extension SearchViewModel: ViewModel {
    static var exposure: Exposure<SearchViewModel> {
        Exposure {
            Field("query", \.query)
            Output("state", \.state)
            Output("resultCount", \.resultCount)
            Output("searchCount", \.searchCount)
        }
    }
}

extension OrderViewModel: ViewModel {
    static var exposure: Exposure<OrderViewModel> {
        Exposure {
            Field("couponCode", \.couponCode)
            Output("catalog", \.catalog)
            Output("lines", \.lines)
            Output("subtotal", \.subtotal)
            Output("discount", \.discount)
            Output("total", \.total)
            Output("placedOrderID", \.placedOrderID)
            Output("error", \.error)
            Output("isPlacing", \.isPlacing)
            Command("add") { (model, product: Product) in model.add(product) }
            Command("remove") { (model, line: OrderLine) in model.remove(line) }
            Command("placeOrder") { await $0.placeOrder() }
        }
    }
}

extension FavoritesViewModel: ViewModel {
    static var exposure: Exposure<FavoritesViewModel> {
        Exposure {
            Field("favoriteIDs", \.favoriteIDs)
            Field("showOnlyFavorites", \.showOnlyFavorites)
            Field("note", \.note)
            Output("shown", \.shown)
            Output("errors", \.errors)
            Command("toggleFavorite") { (model, recipe: Recipe) in model.toggleFavorite(recipe) }
            Command("validate") { $0.validate() }
        }
    }
}

extension StopwatchViewModel: ViewModel {
    static var exposure: Exposure<StopwatchViewModel> {
        Exposure {
            Output("ticks", \.ticks)
            Output("display", \.display)
            Output("isRunning", \.isRunning)
            Command("start") { $0.start() }
            Command("stop") { $0.stop() }
            Command("reset") { $0.reset() }
        }
    }
}

extension ImportViewModel: ViewModel {
    static var exposure: Exposure<ImportViewModel> {
        Exposure {
            Field("total", \.total)
            Output("imported", \.imported)
            Output("lastLine", \.lastLine)
            Output("progress", \.progress)
            Command("importAll") { await $0.importAll() }
            Command("importInBackground") { $0.importInBackground() }
            Command("importInParallel") { (model, workers: Int) in await model.importInParallel(workers: workers) }
        }
    }
}

extension ValueCatalogueViewModel: ViewModel {
    static var exposure: Exposure<ValueCatalogueViewModel> {
        Exposure {
            Field("date", \.date)
            Field("id", \.id)
            Field("link", \.link)
            Field("price", \.price)
            Field("bytes", \.bytes)
            Field("selection", \.selection)
            Field("tags", \.tags)
            Field("scores", \.scores)
            Field("priority", \.priority)
            Field("shape", \.shape)
            Field("address", \.address)
            Field("labels", \.labels)
            Field("context", \.context)
            Field("bigCount", \.bigCount)
            Field("ratio", \.ratio)
            Output("window", \.window)
            Field("timeout", \.timeout)
            Output("lastError", \.lastError)
            Output("pair", \.pair)
            Command("reset") { $0.reset() }
        }
    }
}

extension CounterRowViewModel: ViewModel {
    static var exposure: Exposure<CounterRowViewModel> {
        Exposure {
            Output("id", \.id)
            Field("title", \.title)
            Output("count", \.count)
            Output("summary", \.summary)
            Command("increment") { $0.increment() }
            Command("reset") { $0.reset() }
        }
    }
}

extension ClockTabViewModel: ViewModel {
    static var exposure: Exposure<ClockTabViewModel> {
        Exposure {
            Output("ticks", \.ticks)
            Output("isRunning", \.isRunning)
            Command("start") { $0.start() }
            Command("stop") { $0.stop() }
        }
    }
}

extension ProfileTabViewModel: ViewModel {
    static var exposure: Exposure<ProfileTabViewModel> {
        Exposure {
            Field("name", \.name)
            Output("canSave", \.canSave)
        }
    }
}

extension CountersTabViewModel: ViewModel {
    static var exposure: Exposure<CountersTabViewModel> {
        Exposure {
            Field("newTitle", \.newTitle)
            Output("rows", \.rows)
            Output("total", \.total)
            Command("add") { $0.add() }
            Command("remove") { (model, id: Int) in model.remove(id: id) }
            Command("moveToTop") { (model, id: Int) in model.moveToTop(id: id) }
        }
    }
}

extension TabbedAppViewModel: ViewModel {
    static var exposure: Exposure<TabbedAppViewModel> {
        Exposure {
            Field("selectedTab", \.selectedTab)
            Output("clockTab", \.clockTab)
            Output("profileTab", \.profileTab)
            Output("countersTab", \.countersTab)
            Output("detail", \.detail)
            Command("showDetail") { (model, id: Int) in model.showDetail(id: id) }
            Command("hideDetail") { $0.hideDetail() }
        }
    }
}

extension QuoteFeedViewModel: ViewModel {
    static var exposure: Exposure<QuoteFeedViewModel> {
        Exposure {
            Output("price", \.price)
            Output("updates", \.updates)
            Output("refreshes", \.refreshes)
            Command("refresh") { await $0.refresh() }
        }
    }
}

extension RareValuesViewModel: ViewModel {
    static var exposure: Exposure<RareValuesViewModel> {
        Exposure {
            Field("style", \.style)
            Field("span", \.span)
            Field("distance", \.distance)
            Output("fetch", \.fetch)
            Output("counts", \.counts)
            Output("owner", \.owner)
            Command("fail") { $0.fail() }
        }
    }
}
