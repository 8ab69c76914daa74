"""API schemas of accounts, tokens, projects, scenario history and the audit log
(``XCreate / XUpdate / XPublic / XsPublic {data, count}``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from subflow_backend import passwords

Role = Literal["viewer", "editor", "owner"]
Scope = Literal["read", "write"]

_USERNAME = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.@-]+$",
                  description="Letters, digits and _ . @ -, at most 64.")


def _policy(password: str) -> str:
    reason = passwords.problem(password)
    if reason is not None:
        raise ValueError(reason)
    return password


#: A new password: 8 to 256 characters, not one of the 10 000 most common (:mod:`subflow_backend.passwords`).
Password = Annotated[str, Field(min_length=8, max_length=256, description=(
    "At least 8 characters, not one of the 10 000 most common passwords, not the username.")),
    AfterValidator(_policy)]


class AccessToken(BaseModel):
    """Answer of ``POST /api/auth/login`` (OAuth2 password flow): a bearer access token that
    expires after ``expires_in`` seconds. The browser also gets a session cookie."""

    access_token: str
    token_type: Literal["bearer"] = "bearer"
    expires_in: int = Field(description="Seconds until the access token expires.")


class UserPublic(BaseModel):
    """A user as the API shows it (never a password or its hash)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    username: str
    is_admin: bool
    is_active: bool
    can_run_linux: bool = Field(description="May run comparisons on the root engines (linux, mininet-wifi).")
    created_at: datetime


class UsersPublic(BaseModel):
    """A page of users (``GET /api/users``, admins only)."""

    data: list[UserPublic]
    count: int


class UserCreate(BaseModel):
    """A new user (``POST /api/users``, admins only); the password is stored argon2-hashed."""

    model_config = ConfigDict(extra="forbid")

    username: str = _USERNAME
    password: Password
    is_admin: bool = False
    can_run_linux: bool = False

    @model_validator(mode="after")
    def _not_the_username(self) -> "UserCreate":
        if self.password.lower() == self.username.lower():
            raise ValueError("password: the password may not be the username")
        return self


class UserUpdate(BaseModel):
    """Fields to change (absent: unchanged). A new password ends the user's sessions."""

    model_config = ConfigDict(extra="forbid")

    password: Password | None = None
    is_admin: bool | None = None
    is_active: bool | None = None
    can_run_linux: bool | None = None


class PasswordChange(BaseModel):
    """``PUT /api/users/me/password``: the current password (400 if wrong) and the new one."""

    model_config = ConfigDict(extra="forbid")

    current_password: str = Field(max_length=256)
    new_password: Password


class ApiTokenCreate(BaseModel):
    """A new personal API token (``POST /api/users/me/tokens``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100, description="What the token is for.")
    scope: Scope = Field(default="read", description="read: GET and computations; write: also changes and runs.")
    expires_days: int | None = Field(default=None, ge=1, le=3650, description="Days until it expires; null: never.")


class ApiTokenPublic(BaseModel):
    """A personal API token without its secret (only its first characters, ``prefix``)."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    prefix: str = Field(description="The token's first characters, to recognise it.")
    scope: Scope
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


class ApiTokenCreated(ApiTokenPublic):
    """A new token: ``token`` is shown this once (only its hash is stored)."""

    token: str = Field(description="Send as `Authorization: Bearer <token>`.")


class ApiTokensPublic(BaseModel):
    """The caller's personal API tokens."""

    data: list[ApiTokenPublic]
    count: int


class ProjectCreate(BaseModel):
    """A new project (``POST /api/projects``); its creator becomes its owner."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    description: str = Field(default="", max_length=10_000)


class ProjectUpdate(BaseModel):
    """Fields of a project to change (absent: unchanged); owners only."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, min_length=1, max_length=120)
    description: str | None = Field(default=None, max_length=10_000)


class ProjectPublic(BaseModel):
    """A project and the caller's role in it."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    description: str
    created_at: datetime
    role: Role = Field(description="The caller's role (admins: owner).")


class ProjectsPublic(BaseModel):
    """The projects the caller is a member of (admins: all)."""

    data: list[ProjectPublic]
    count: int


class MemberSet(BaseModel):
    """The role to give a user in a project (``PUT /api/projects/{id}/members/{user_id}``)."""

    model_config = ConfigDict(extra="forbid")

    role: Role


class MemberAdd(BaseModel):
    """A user to add to a project by name, with their role (``POST /api/projects/{id}/members``)."""

    model_config = ConfigDict(extra="forbid")

    username: str = _USERNAME
    role: Role


class MemberPublic(BaseModel):
    """A member of a project and their role."""

    user_id: str
    username: str
    role: Role


class MembersPublic(BaseModel):
    """The members of a project."""

    data: list[MemberPublic]
    count: int


class ScenarioVersionSummary(BaseModel):
    """One saved version of a scenario: who saved it (``saved_by``, a username; null for
    versions saved before accounts existed) and when."""

    version: int
    name: str
    description: str
    saved_at: datetime
    saved_by: str | None
    current: bool = Field(description="Whether this is the scenario's current version.")


class ScenarioVersionPublic(ScenarioVersionSummary):
    """One saved version of a scenario with its document."""

    scenario: dict[str, Any] = Field(description="The scenario document of this version.")


class ScenarioVersionsPublic(BaseModel):
    """The saved versions of a scenario, newest first."""

    data: list[ScenarioVersionSummary]
    count: int


class ScenarioFork(BaseModel):
    """Body of ``POST /api/scenarios/{id}/fork``: a copy of the scenario (of ``version``;
    default the current one) named ``name``, in ``project_id`` (default: the same project)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    version: int | None = Field(default=None, ge=1, le=2**31 - 1)
    project_id: str | None = Field(default=None, max_length=36)


class AuditEntryPublic(BaseModel):
    """One audit record: who (``username``) did what (``action``) to what (``target``), when, from where (``ip``)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    at: datetime
    username: str | None
    action: str
    target: str | None
    ip: str | None
    detail: dict[str, Any] | None


class AuditPublic(BaseModel):
    """A page of the audit log (``GET /api/audit``, admins only)."""

    data: list[AuditEntryPublic]
    count: int
