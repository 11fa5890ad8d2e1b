"""Tick's pages (reads) and its JSON API (the one write, which the page's script calls)."""

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.templating import Pages
from tests.sites.tiny.world import TinyEpisode


def page_router(pages: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/", response_class=HTMLResponse)
    @hook_point("todos", "page")
    async def todos(request: Request, episode: TinyEpisode) -> HTMLResponse:
        episode.emit.navigate("view_todos", todo_ids=[t.id for t in episode.state.todos])
        return pages.render(episode, "todos.html", title="To-dos", todos=episode.state.todos)

    @router.get("/todos/{todo_id}", response_class=HTMLResponse)
    @hook_point("todo", "page", target=lambda kw: kw["todo_id"])
    async def todo(todo_id: str, request: Request, episode: TinyEpisode) -> HTMLResponse:
        found = get_or_404(episode.state.todos, todo_id, detail="There is no such to-do.")
        episode.emit.inspect("view_todo", found.id, revealed=["due"])
        notice = "Marked done" if request.query_params.get("notice") == "done" else None
        return pages.render(episode, "todo.html", title=found.name, todo=found, notice=notice)

    return router


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/todos/{todo_id}/done")
    @hook_point("mark_done", "write", target=lambda kw: kw["todo_id"])
    async def mark_done(todo_id: str, request: Request, episode: TinyEpisode) -> dict[str, Any]:
        found = get_or_404(episode.state.todos, todo_id, "to-do")
        if not found.done:
            found.done, found.done_at = True, episode.clock.stamp()
            episode.emit.commit("mark_done", found.id, todo_id=found.id)
        return found.model_dump()

    return router
